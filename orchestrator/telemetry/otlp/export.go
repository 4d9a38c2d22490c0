// Package otlp sends the OpenTelemetry SDK's spans and metrics to a
// collector over OTLP, HTTP/protobuf or gRPC: an sdktrace.SpanExporter
// and an sdkmetric.Exporter.
//
// The official OTLP exporters would do it, but they link gRPC and the
// protobuf runtime into the binary, and every start of lathe, telemetry on
// or off, pays for their package initialisation and memory. These write
// the few messages OTLP has by hand and speak gRPC's one unary call
// over net/http's HTTP/2; the tests hold them to the official exporters'
// requests and to grpc-go's server.
package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Protocols.
const (
	HTTP = "http/protobuf"
	GRPC = "grpc"
)

// Config is where and how one signal goes.
type Config struct {
	Protocol string
	// URL is the endpoint: over HTTP the whole URL the signal is posted
	// to (…/v1/traces), over gRPC the collector's http:// (plaintext) or
	// https:// address; its path is not used.
	URL     string
	Headers map[string]string
	// Timeout bounds one export.
	Timeout time.Duration
	// Gzip compresses what is sent.
	Gzip bool
	// TLS is for an https:// endpoint; nil for the system's roots.
	TLS *tls.Config
	// UserAgent names the sender.
	UserAgent string
	// Temporality is the metrics' (nil for cumulative): one of the
	// SDK's selectors.
	Temporality sdkmetric.TemporalitySelector
	// Aggregation is the metrics' (nil for the SDK's default).
	Aggregation sdkmetric.AggregationSelector
}

// The gRPC methods of OTLP.
const (
	traceMethod  = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
	metricMethod = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"
)

// maxReply bounds what is read of a collector's reply.
const maxReply = 64 << 10

// client posts the requests of one signal.
type client struct {
	c      Config
	target string
	http   *http.Client
}

func newClient(c Config, method string) (*client, error) {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q is not an http:// or https:// URL", c.URL)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if c.TLS != nil {
		tr.TLSClientConfig = c.TLS.Clone()
	}
	target := u.String()
	if c.Protocol == GRPC {
		// gRPC is HTTP/2 only: over TLS as ALPN picks it, in plaintext
		// with prior knowledge, as grpc-go does.
		var p http.Protocols
		p.SetHTTP2(true)
		p.SetUnencryptedHTTP2(true)
		tr.Protocols = &p
		target = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: method}).String()
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	return &client{c: c, target: target, http: &http.Client{Transport: tr}}, nil
}

// send posts one request's body, and reads what the collector says of it.
func (cl *client) send(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, cl.c.Timeout)
	defer cancel()
	if cl.c.Gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		body = buf.Bytes()
	}
	grpc := cl.c.Protocol == GRPC
	if grpc {
		framed := make([]byte, 5, 5+len(body))
		if cl.c.Gzip {
			framed[0] = 1
		}
		binary.BigEndian.PutUint32(framed[1:], uint32(len(body)))
		body = append(framed, body...)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cl.target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range cl.c.Headers {
		req.Header.Set(k, v)
	}
	if cl.c.UserAgent != "" {
		req.Header.Set("User-Agent", cl.c.UserAgent)
	}
	if grpc {
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("TE", "trailers")
		if cl.c.Gzip {
			req.Header.Set("Grpc-Encoding", "gzip")
		}
	} else {
		req.Header.Set("Content-Type", "application/x-protobuf")
		if cl.c.Gzip {
			req.Header.Set("Content-Encoding", "gzip")
		}
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil && !grpc {
		return err
	}
	if grpc {
		return grpcReply(resp, reply, err)
	}
	if resp.StatusCode != http.StatusOK {
		return &StatusError{HTTP: resp.StatusCode, Message: httpMessage(resp.Header.Get("Content-Type"), reply)}
	}
	return partial(reply)
}

// grpcReply reads a gRPC call's reply: its status from the trailers (or
// the headers, for a reply that is only trailers), its message from the
// body.
func grpcReply(resp *http.Response, reply []byte, readErr error) error {
	if resp.StatusCode != http.StatusOK {
		return &StatusError{HTTP: resp.StatusCode, Message: httpMessage(resp.Header.Get("Content-Type"), reply)}
	}
	code, msg := resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message")
	if code == "" {
		code, msg = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	}
	if code == "" {
		if readErr != nil {
			return readErr
		}
		return &StatusError{HTTP: resp.StatusCode, Message: "the reply has no gRPC status"}
	}
	if code != "0" {
		n, _ := strconv.Atoi(code)
		if m, err := url.PathUnescape(msg); err == nil {
			msg = m
		}
		return &StatusError{GRPC: n, Message: msg}
	}
	if len(reply) < 5 || reply[0] != 0 {
		return nil // no message, or a compressed one: nothing rejected is said
	}
	n := binary.BigEndian.Uint32(reply[1:5])
	if uint64(n) > uint64(len(reply)-5) {
		return nil
	}
	return partial(reply[5 : 5+n])
}

// httpMessage is the message of a failed reply: a google.rpc.Status's
// (as OTLP/HTTP sends them), or the start of its text.
func httpMessage(contentType string, reply []byte) string {
	if strings.HasPrefix(contentType, "application/x-protobuf") {
		var msg string
		walk(reply, func(num fieldNum, typ kind, v []byte, _ uint64) {
			if num == 2 && typ == bytesKind {
				msg = string(v)
			}
		})
		return msg
	}
	s := strings.TrimSpace(string(reply))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// partial reads an Export…ServiceResponse: its partial_success says how
// much the collector rejected, and why.
func partial(reply []byte) error {
	var rejected int64
	var msg string
	walk(reply, func(num fieldNum, typ kind, v []byte, _ uint64) {
		if num != 1 || typ != bytesKind {
			return
		}
		walk(v, func(num fieldNum, typ kind, v []byte, n uint64) {
			switch {
			case num == 1 && typ == varintKind:
				rejected = int64(n)
			case num == 2 && typ == bytesKind:
				msg = string(v)
			}
		})
	})
	if rejected == 0 && msg == "" {
		return nil
	}
	return &RejectedError{N: rejected, Message: msg}
}

// StatusError is a collector's refusal.
type StatusError struct {
	HTTP    int // the HTTP status, when it was not 200
	GRPC    int // the gRPC status, when the call failed
	Message string
}

// grpcCodes name gRPC's status codes.
var grpcCodes = [...]string{"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound",
	"AlreadyExists", "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
	"Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated"}

func (e *StatusError) Error() string {
	var s string
	if e.HTTP != 0 {
		s = "HTTP " + strconv.Itoa(e.HTTP)
		if t := http.StatusText(e.HTTP); t != "" {
			s += " " + t
		}
	} else {
		s = "gRPC status " + strconv.Itoa(e.GRPC)
		if e.GRPC >= 0 && e.GRPC < len(grpcCodes) {
			s = "gRPC " + grpcCodes[e.GRPC]
		}
	}
	if e.Message != "" {
		s += " (" + e.Message + ")"
	}
	return s
}

// RejectedError says the collector took the request but rejected part
// of it: N spans or data points.
type RejectedError struct {
	N       int64
	Message string
}

func (e *RejectedError) Error() string {
	s := "rejected by the collector"
	if e.Message != "" {
		s += " (" + e.Message + ")"
	}
	return s
}

// Shutdown closes the exporter's idle connections.
func (cl *client) Shutdown(context.Context) error {
	cl.http.CloseIdleConnections()
	return nil
}

// SpanExporter sends spans. It is an sdktrace.SpanExporter.
type SpanExporter struct{ *client }

var _ sdktrace.SpanExporter = SpanExporter{}

// NewSpanExporter makes an exporter of spans; it connects when it first
// sends.
func NewSpanExporter(c Config) (SpanExporter, error) {
	cl, err := newClient(c, traceMethod)
	return SpanExporter{cl}, err
}

// ExportSpans sends spans in one request.
func (e SpanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.send(ctx, Traces(spans))
}

// MetricExporter sends metrics. It is an sdkmetric.Exporter.
type MetricExporter struct{ *client }

var _ sdkmetric.Exporter = MetricExporter{}

// NewMetricExporter makes an exporter of metrics; it connects when it
// first sends. Its temporality is cumulative and its aggregation the
// SDK's default unless c says otherwise.
func NewMetricExporter(c Config) (MetricExporter, error) {
	if c.Temporality == nil {
		c.Temporality = sdkmetric.DefaultTemporalitySelector
	}
	if c.Aggregation == nil {
		c.Aggregation = sdkmetric.DefaultAggregationSelector
	}
	cl, err := newClient(c, metricMethod)
	return MetricExporter{cl}, err
}

// Temporality is the configured one.
func (e MetricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return e.c.Temporality(k)
}

// Aggregation is the configured one.
func (e MetricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return e.c.Aggregation(k)
}

// Export sends a collection of metrics in one request.
func (e MetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if rm == nil || len(rm.ScopeMetrics) == 0 {
		return nil
	}
	return e.send(ctx, Metrics(rm))
}

// ForceFlush has nothing to do: nothing is held.
func (e MetricExporter) ForceFlush(ctx context.Context) error { return ctx.Err() }
