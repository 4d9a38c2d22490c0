package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // the server takes gzip
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// traceService is a collector's trace service on grpc-go: it keeps what
// it gets and answers as told.
type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	got   chan *coltracepb.ExportTraceServiceRequest
	md    chan metadata.MD
	reply *coltracepb.ExportTraceServiceResponse
	err   error
	block bool
}

func (s *traceService) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	if s.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	md, _ := metadata.FromIncomingContext(ctx)
	s.md <- md
	s.got <- req
	if s.reply == nil {
		return &coltracepb.ExportTraceServiceResponse{}, s.err
	}
	return s.reply, s.err
}

type metricsService struct {
	colmetricpb.UnimplementedMetricsServiceServer
	got chan *colmetricpb.ExportMetricsServiceRequest
}

func (s *metricsService) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	s.got <- req
	return &colmetricpb.ExportMetricsServiceResponse{PartialSuccess: &colmetricpb.ExportMetricsPartialSuccess{
		RejectedDataPoints: 2, ErrorMessage: "points too old"}}, nil
}

// grpcCollector serves s on loopback in plaintext.
func grpcCollector(t *testing.T, s *traceService) string {
	t.Helper()
	s.got = make(chan *coltracepb.ExportTraceServiceRequest, 1)
	s.md = make(chan metadata.MD, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, s)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return "http://" + ln.Addr().String()
}

func TestGRPCSendsSpansToGRPCGo(t *testing.T) {
	for _, zip := range []bool{false, true} {
		s := &traceService{}
		url := grpcCollector(t, s)
		exp, err := NewSpanExporter(Config{Protocol: GRPC, URL: url, Gzip: zip, Timeout: 5 * time.Second,
			Headers: map[string]string{"x-honeycomb-team": "key"}, UserAgent: "lathe/test"})
		if err != nil {
			t.Fatal(err)
		}
		ss := spans(t)
		if err := exp.ExportSpans(context.Background(), ss); err != nil {
			t.Fatalf("gzip %v: %v", zip, err)
		}
		var want coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(Traces(ss), &want); err != nil {
			t.Fatal(err)
		}
		if got := <-s.got; !proto.Equal(got, &want) {
			t.Errorf("gzip %v: the server got another request", zip)
		}
		md := <-s.md
		if got := md.Get("x-honeycomb-team"); len(got) != 1 || got[0] != "key" {
			t.Errorf("gzip %v: header x-honeycomb-team = %q", zip, got)
		}
		if got := md.Get("user-agent"); len(got) == 0 || !strings.HasPrefix(got[0], "lathe/test") {
			t.Errorf("gzip %v: user-agent = %q", zip, got)
		}
		exp.Shutdown(context.Background())
	}
}

func TestGRPCStatusAndRejections(t *testing.T) {
	s := &traceService{err: grpcstatus.Error(codes.Unavailable, "busy: 50% full")}
	exp, err := NewSpanExporter(Config{Protocol: GRPC, URL: grpcCollector(t, s)})
	if err != nil {
		t.Fatal(err)
	}
	err = exp.ExportSpans(context.Background(), spans(t))
	var se *StatusError
	if !errors.As(err, &se) || se.GRPC != int(codes.Unavailable) || se.Message != "busy: 50% full" {
		t.Fatalf("err = %#v, want gRPC Unavailable with its message", err)
	}
	if got := err.Error(); got != "gRPC Unavailable (busy: 50% full)" {
		t.Errorf("message %q", got)
	}

	s2 := &traceService{reply: &coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{
		RejectedSpans: 3, ErrorMessage: "too large"}}}
	exp2, _ := NewSpanExporter(Config{Protocol: GRPC, URL: grpcCollector(t, s2)})
	err = exp2.ExportSpans(context.Background(), spans(t))
	var re *RejectedError
	if !errors.As(err, &re) || re.N != 3 || re.Message != "too large" {
		t.Fatalf("err = %#v, want 3 rejected (too large)", err)
	}
}

func TestGRPCTimesOut(t *testing.T) {
	s := &traceService{block: true}
	exp, _ := NewSpanExporter(Config{Protocol: GRPC, URL: grpcCollector(t, s), Timeout: 50 * time.Millisecond})
	err := exp.ExportSpans(context.Background(), spans(t))
	var se *StatusError
	if !errors.Is(err, context.DeadlineExceeded) && !(errors.As(err, &se) && se.GRPC == int(codes.DeadlineExceeded)) {
		t.Fatalf("err = %v, want the deadline exceeded", err)
	}
}

// TestGRPCOverTLS speaks to grpc-go behind a TLS server, as to a
// collector at an https:// address: HTTP/2 by ALPN.
func TestGRPCOverTLS(t *testing.T) {
	s := &traceService{got: make(chan *coltracepb.ExportTraceServiceRequest, 1), md: make(chan metadata.MD, 1)}
	srv := grpc.NewServer()
	ms := &metricsService{got: make(chan *colmetricpb.ExportMetricsServiceRequest, 1)}
	coltracepb.RegisterTraceServiceServer(srv, s)
	colmetricpb.RegisterMetricsServiceServer(srv, ms)
	hs := httptest.NewUnstartedServer(srv)
	hs.EnableHTTP2 = true
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	hs.StartTLS()
	t.Cleanup(hs.Close)
	roots := x509.NewCertPool()
	roots.AddCert(hs.Certificate())
	c := Config{Protocol: GRPC, URL: hs.URL, TLS: &tls.Config{RootCAs: roots}}
	exp, err := NewSpanExporter(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.ExportSpans(context.Background(), spans(t)); err != nil {
		t.Fatal(err)
	}
	if got := <-s.got; len(got.ResourceSpans) != 2 {
		t.Errorf("got %d resources", len(got.ResourceSpans))
	}
	mexp, _ := NewMetricExporter(c)
	err = mexp.Export(context.Background(), metrics(t))
	var re *RejectedError
	if !errors.As(err, &re) || re.N != 2 || re.Message != "points too old" {
		t.Fatalf("metrics: err = %v, want 2 points rejected", err)
	}
	if got := <-ms.got; len(got.ResourceMetrics) != 1 {
		t.Errorf("got %d resources of metrics", len(got.ResourceMetrics))
	}

	// Without the server's certificate, nothing goes.
	bad, _ := NewSpanExporter(Config{Protocol: GRPC, URL: hs.URL})
	if err := bad.ExportSpans(context.Background(), spans(t)); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("an unknown certificate: err = %v", err)
	}
}

// httpCollector answers each request with h, after keeping its body
// (unzipped) and headers.
func httpCollector(t *testing.T, h http.HandlerFunc) (string, chan *http.Request, chan []byte) {
	t.Helper()
	reqs, bodies := make(chan *http.Request, 1), make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		reqs <- r
		bodies <- b
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, reqs, bodies
}

func TestHTTPSendsAndReadsTheReply(t *testing.T) {
	ok := func(w http.ResponseWriter, _ *http.Request) {
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(b)
	}
	for _, zip := range []bool{false, true} {
		url, reqs, bodies := httpCollector(t, ok)
		exp, err := NewSpanExporter(Config{Protocol: HTTP, URL: url + "/v1/traces", Gzip: zip,
			Headers: map[string]string{"Authorization": "Basic eA=="}})
		if err != nil {
			t.Fatal(err)
		}
		ss := spans(t)
		if err := exp.ExportSpans(context.Background(), ss); err != nil {
			t.Fatal(err)
		}
		r, body := <-reqs, <-bodies
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" ||
			r.Header.Get("Authorization") != "Basic eA==" {
			t.Errorf("gzip %v: %s with %v", zip, r.URL.Path, r.Header)
		}
		if !bytes.Equal(body, Traces(ss)) {
			t.Errorf("gzip %v: the body is not the request", zip)
		}
	}
}

func TestHTTPFailures(t *testing.T) {
	cases := []struct {
		name string
		h    http.HandlerFunc
		want string
	}{
		{"a google.rpc.Status", func(w http.ResponseWriter, _ *http.Request) {
			b, _ := proto.Marshal(&status.Status{Code: 3, Message: "bad span"})
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(b)
		}, "HTTP 400 Bad Request (bad span)"},
		{"text", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no route\nmore", http.StatusNotFound)
		}, "HTTP 404 Not Found (no route)"},
		{"a huge page", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			w.Write(bytes.Repeat([]byte("x"), 1<<20))
		}, "HTTP 502 Bad Gateway (" + strings.Repeat("x", 200) + "…)"},
		{"a partial success", func(w http.ResponseWriter, _ *http.Request) {
			b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{
				RejectedSpans: 4}})
			w.Write(b)
		}, "rejected by the collector"},
		{"garbage", func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte{0xff, 0xff, 0xff})
		}, ""},
	}
	for _, c := range cases {
		url, _, _ := httpCollector(t, c.h)
		exp, _ := NewSpanExporter(Config{Protocol: HTTP, URL: url + "/v1/traces"})
		err := exp.ExportSpans(context.Background(), spans(t))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: err = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEndpointMustBeAURL(t *testing.T) {
	for _, u := range []string{"collector:4318", "ftp://x", "http://"} {
		if _, err := NewSpanExporter(Config{Protocol: HTTP, URL: u}); err == nil {
			t.Errorf("%q taken", u)
		}
	}
}

func TestNothingToSendSendsNothing(t *testing.T) {
	url, reqs, _ := httpCollector(t, func(http.ResponseWriter, *http.Request) {})
	exp, _ := NewSpanExporter(Config{Protocol: HTTP, URL: url})
	mexp, _ := NewMetricExporter(Config{Protocol: HTTP, URL: url})
	if err := exp.ExportSpans(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := mexp.Export(context.Background(), &metricdata.ResourceMetrics{}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-reqs:
		t.Errorf("sent %s", r.URL)
	default:
	}
}
