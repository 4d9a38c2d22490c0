// Package otlptest is an OTLP receiver for tests: it takes traces and
// metrics over HTTP/protobuf or gRPC on loopback, as a collector would,
// and keeps them to be looked at.
package otlptest

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Protocols.
const (
	HTTP = "http/protobuf"
	GRPC = "grpc"
)

// Receiver is a collector on loopback.
type Receiver struct {
	// Endpoint is what OTEL_EXPORTER_OTLP_ENDPOINT is set to for it.
	Endpoint string
	Protocol string

	mu       sync.Mutex
	spans    []Span
	metrics  []Metric
	requests []string // the paths or methods asked, in order
	headers  []http.Header
	got      chan struct{}
}

// Span is a span as received.
type Span struct {
	Name               string
	TraceID, ID        string
	Parent             string // the parent's ID; empty for a root
	Kind               string // INTERNAL, CLIENT...
	Start, End         time.Time
	Attrs              map[string]any
	Resource           map[string]any
	Scope              string
	StatusCode, Status string // STATUS_CODE_ERROR and its description
	Events             []string
}

// Metric is one data point of a metric as received.
type Metric struct {
	Name, Unit string
	Attrs      map[string]any
	Resource   map[string]any
	// Count and Sum are a histogram's; Value a sum's or gauge's.
	Count uint64
	Sum   float64
	Value float64
}

// New starts a receiver speaking protocol, stopped at the end of the test.
func New(t testing.TB, protocol string) *Receiver {
	t.Helper()
	r := &Receiver{Protocol: protocol, got: make(chan struct{}, 1)}
	switch protocol {
	case GRPC:
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer()
		coltracepb.RegisterTraceServiceServer(srv, traceService{r: r})
		colmetricpb.RegisterMetricsServiceServer(srv, metricsService{r: r})
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(srv.Stop)
		r.Endpoint = "http://" + ln.Addr().String()
	default:
		srv := httptest.NewServer(http.HandlerFunc(r.serveHTTP))
		t.Cleanup(srv.Close)
		r.Endpoint = srv.URL
	}
	return r
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var m coltracepb.ExportTraceServiceRequest
		if err = proto.Unmarshal(body, &m); err == nil {
			r.addSpans(m.ResourceSpans)
		}
		resp = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var m colmetricpb.ExportMetricsServiceRequest
		if err = proto.Unmarshal(body, &m); err == nil {
			r.addMetrics(m.ResourceMetrics)
		}
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, req)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.asked(req.URL.Path, req.Header)
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	s.r.addSpans(req.ResourceSpans)
	s.r.asked("Export traces", nil)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type metricsService struct {
	colmetricpb.UnimplementedMetricsServiceServer
	r *Receiver
}

func (s metricsService) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	s.r.addMetrics(req.ResourceMetrics)
	s.r.asked("Export metrics", nil)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

func (r *Receiver) asked(what string, h http.Header) {
	r.mu.Lock()
	r.requests = append(r.requests, what)
	r.headers = append(r.headers, h)
	r.mu.Unlock()
	select {
	case r.got <- struct{}{}:
	default:
	}
}

func (r *Receiver) addSpans(rss []*tracepb.ResourceSpans) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range rss {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{Name: s.Name, TraceID: hex.EncodeToString(s.TraceId), ID: hex.EncodeToString(s.SpanId),
					Parent: hex.EncodeToString(s.ParentSpanId), Kind: kindName(s.Kind),
					Start: time.Unix(0, int64(s.StartTimeUnixNano)), End: time.Unix(0, int64(s.EndTimeUnixNano)),
					Attrs: attrs(s.Attributes), Resource: res, Scope: ss.GetScope().GetName(),
					StatusCode: s.GetStatus().GetCode().String(), Status: s.GetStatus().GetMessage()}
				for _, e := range s.Events {
					sp.Events = append(sp.Events, e.Name)
				}
				r.spans = append(r.spans, sp)
			}
		}
	}
}

func kindName(k tracepb.Span_SpanKind) string {
	s := k.String()
	if len(s) > len("SPAN_KIND_") {
		return s[len("SPAN_KIND_"):]
	}
	return s
}

func (r *Receiver) addMetrics(rms []*metricpb.ResourceMetrics) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rm := range rms {
		res := attrs(rm.GetResource().GetAttributes())
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				for _, p := range m.GetHistogram().GetDataPoints() {
					r.metrics = append(r.metrics, Metric{Name: m.Name, Unit: m.Unit, Attrs: attrs(p.Attributes),
						Resource: res, Count: p.Count, Sum: p.GetSum()})
				}
				for _, p := range m.GetSum().GetDataPoints() {
					r.metrics = append(r.metrics, Metric{Name: m.Name, Unit: m.Unit, Attrs: attrs(p.Attributes),
						Resource: res, Value: number(p)})
				}
				for _, p := range m.GetGauge().GetDataPoints() {
					r.metrics = append(r.metrics, Metric{Name: m.Name, Unit: m.Unit, Attrs: attrs(p.Attributes),
						Resource: res, Value: number(p)})
				}
			}
		}
	}
}

func number(p *metricpb.NumberDataPoint) float64 {
	if _, ok := p.Value.(*metricpb.NumberDataPoint_AsInt); ok {
		return float64(p.GetAsInt())
	}
	return p.GetAsDouble()
}

// attrs are attributes as Go values: string, int64, float64, bool, or a
// []any of them.
func attrs(kvs []*commonpb.KeyValue) map[string]any {
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		out[kv.Key] = value(kv.Value)
	}
	return out
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.Values {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

// Spans are the spans received so far, in the order they came.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Metrics are the data points received so far, in the order they came.
func (r *Receiver) Metrics() []Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.metrics)
}

// Requests are the exports received: their paths over HTTP ("/v1/traces"),
// "Export traces" or "Export metrics" over gRPC.
func (r *Receiver) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Headers are the HTTP headers of each export (nil over gRPC).
func (r *Receiver) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.headers)
}

// Got is told (without blocking: one pending at most) when an export
// arrives.
func (r *Receiver) Got() <-chan struct{} { return r.got }
