package telemetry

import (
	"compress/gzip"
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"lathe/config"
)

// TestResolveTransport: compression, certificates and the metrics'
// preferences come from the variables, a signal's own first; a value
// lathe does not know is an error that names the variable.
func TestResolveTransport(t *testing.T) {
	s, err := resolve(config.Telemetry{Endpoint: "https://c:4318", Env: map[string]string{
		"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION": "none",
		"OTEL_EXPORTER_OTLP_CERTIFICATE": "/ca.pem", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": "/traces-ca.pem",
		"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": "/me.pem", "OTEL_EXPORTER_OTLP_CLIENT_KEY": "/me.key",
		"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "Delta"}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.traces.gzip || s.metrics.gzip {
		t.Errorf("gzip: traces %v, metrics %v; want true, false", s.traces.gzip, s.metrics.gzip)
	}
	if s.traces.ca != "/traces-ca.pem" || s.metrics.ca != "/ca.pem" || s.metrics.cert != "/me.pem" || s.metrics.key != "/me.key" {
		t.Errorf("certificates: traces %q, metrics %q %q %q", s.traces.ca, s.metrics.ca, s.metrics.cert, s.metrics.key)
	}
	if s.metrics.temporality != "delta" {
		t.Errorf("temporality %q", s.metrics.temporality)
	}
	for env, want := range map[string]string{
		"OTEL_EXPORTER_OTLP_COMPRESSION=zstd":                                     "OTEL_EXPORTER_OTLP_COMPRESSION: \"zstd\"",
		"OTEL_EXPORTER_OTLP_CLIENT_KEY=/k":                                        "set both or neither",
		"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=sometimes":             "TEMPORALITY_PREFERENCE: \"sometimes\"",
		"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=base10_buckets": "HISTOGRAM_AGGREGATION: \"base10_buckets\"",
	} {
		k, v, _ := strings.Cut(env, "=")
		_, err := resolve(config.Telemetry{Endpoint: "http://c", Env: map[string]string{k: v}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", env, err, want)
		}
	}
}

// tlsCollector is an OTLP/HTTP collector behind TLS that takes gzip: it
// keeps the spans' names and the metrics' temporalities.
type tlsCollector struct {
	srv           *httptest.Server
	mu            sync.Mutex
	spans         []string
	temporalities []metricpb.AggregationTemporality
	plain         int // requests not gzipped
}

func newTLSCollector(t *testing.T) *tlsCollector {
	c := &tlsCollector{}
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		c.mu.Lock()
		defer c.mu.Unlock()
		if body == r.Body {
			c.plain++
		}
		switch r.URL.Path {
		case "/v1/traces":
			var req coltracepb.ExportTraceServiceRequest
			if proto.Unmarshal(b, &req) != nil {
				http.Error(w, "not a request", http.StatusBadRequest)
				return
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						c.spans = append(c.spans, s.Name)
					}
				}
			}
		case "/v1/metrics":
			var req colmetricpb.ExportMetricsServiceRequest
			if proto.Unmarshal(b, &req) != nil {
				http.Error(w, "not a request", http.StatusBadRequest)
				return
			}
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						c.temporalities = append(c.temporalities, m.GetHistogram().GetAggregationTemporality())
					}
				}
			}
		}
	}))
	c.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	c.srv.StartTLS()
	t.Cleanup(c.srv.Close)
	return c
}

// TestExportWithCertificateAndGzip: a collector whose certificate only
// OTEL_EXPORTER_OTLP_CERTIFICATE vouches for gets the spans and metrics,
// gzipped, with the temporality asked for; without it, nothing is sent
// and the loss names the certificate.
func TestExportWithCertificateAndGzip(t *testing.T) {
	col := newTLSCollector(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: col.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(env map[string]string) error {
		env["OTEL_EXPORTER_OTLP_ENDPOINT"] = col.srv.URL
		tel, err := New(t.Context(), Options{Config: config.Telemetry{Env: env}, Provider: "ollama", Version: "test", Log: zerolog.Nop()})
		if err != nil {
			return err
		}
		_, span := tel.tracer.Start(context.Background(), "invoke_agent lathe")
		span.End()
		tel.inst.tokens.Record(context.Background(), 12)
		return tel.Close(t.Context())
	}
	err := run(map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": ca, "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
		"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "delta"})
	if err != nil {
		t.Fatal(err)
	}
	col.mu.Lock()
	if len(col.spans) != 1 || col.spans[0] != "invoke_agent lathe" {
		t.Errorf("spans %q", col.spans)
	}
	if len(col.temporalities) != 1 || col.temporalities[0] != metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA {
		t.Errorf("temporalities %v, want one delta", col.temporalities)
	}
	if col.plain != 0 {
		t.Errorf("%d requests were not gzipped", col.plain)
	}
	col.mu.Unlock()

	err = run(map[string]string{})
	if err == nil || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), "1 span") {
		t.Errorf("without the certificate: %v", err)
	}
	if _, err := New(t.Context(), Options{Config: config.Telemetry{Env: map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": col.srv.URL, "OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent.pem"}}}); err == nil ||
		!strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_CERTIFICATE") {
		t.Errorf("a missing certificate file: %v", err)
	}
}
