package telemetry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"lathe/config"
	"lathe/orchestrator/telemetry/otlp"
)

// exportTimeout bounds one export: a collector that does not answer
// costs a batch, not the run.
const exportTimeout = 5 * time.Second

// tracerProvider batches spans to each exporter of the traces: a bounded
// queue, dropping what does not fit, so that no turn waits for it.
func (t *Telemetry) tracerProvider(ctx context.Context, res *resource.Resource) (*sdktrace.TracerProvider, error) {
	sig := t.set.traces
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	for _, name := range sig.exporters {
		var exp sdktrace.SpanExporter
		var err error
		switch {
		case name == config.ExporterConsole:
			exp, err = stdouttrace.New(stdouttrace.WithWriter(t.o.Console))
		default:
			var c otlp.Config
			if c, err = t.otlpConfig(sig); err == nil {
				exp, err = otlp.NewSpanExporter(c)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("telemetry: %s exporter of traces: %w", name, err)
		}
		endpoint := sig.url
		if name == config.ExporterConsole {
			endpoint = ""
		}
		opts = append(opts, sdktrace.WithBatcher(spanExporter{SpanExporter: exp, lost: t.lost, endpoint: endpoint}))
	}
	return sdktrace.NewTracerProvider(opts...), nil
}

// meterProvider reads the metrics periodically, and at the end, into
// each exporter of the metrics.
func (t *Telemetry) meterProvider(ctx context.Context, res *resource.Resource) (*sdkmetric.MeterProvider, error) {
	sig := t.set.metrics
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	for _, name := range sig.exporters {
		var exp sdkmetric.Exporter
		var err error
		switch {
		case name == config.ExporterConsole:
			exp, err = stdoutmetric.New(stdoutmetric.WithWriter(t.o.Console))
		default:
			var c otlp.Config
			if c, err = t.otlpConfig(sig); err == nil {
				c.Temporality, c.Aggregation = temporality(sig.temporality), aggregation(sig.histograms)
				exp, err = otlp.NewMetricExporter(c)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("telemetry: %s exporter of metrics: %w", name, err)
		}
		endpoint := sig.url
		if name == config.ExporterConsole {
			endpoint = ""
		}
		reader := sdkmetric.NewPeriodicReader(metricExporter{Exporter: exp, lost: t.lost, endpoint: endpoint})
		opts = append(opts, sdkmetric.WithReader(reader))
	}
	return sdkmetric.NewMeterProvider(opts...), nil
}

// otlpConfig is how sig goes over OTLP: an export is not retried, and
// takes exportTimeout at most.
func (t *Telemetry) otlpConfig(sig signal) (otlp.Config, error) {
	c := otlp.Config{Protocol: sig.protocol, URL: sig.url, Headers: sig.headers, Timeout: exportTimeout,
		Gzip: sig.gzip, UserAgent: "lathe/" + t.o.Version}
	if sig.ca == "" && sig.cert == "" {
		return c, nil
	}
	c.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	if sig.ca != "" {
		pem, err := os.ReadFile(sig.ca)
		if err != nil {
			return c, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
		}
		c.TLS.RootCAs = x509.NewCertPool()
		if !c.TLS.RootCAs.AppendCertsFromPEM(pem) {
			return c, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %s holds no PEM certificate", sig.ca)
		}
	}
	if sig.cert != "" {
		pair, err := tls.LoadX509KeyPair(sig.cert, sig.key)
		if err != nil {
			return c, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: %w", err)
		}
		c.TLS.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// temporality is the selector OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// names; nil for the default, cumulative.
func temporality(pref string) sdkmetric.TemporalitySelector {
	switch pref {
	case "delta":
		return sdkmetric.DeltaTemporalitySelector
	case "lowmemory":
		return sdkmetric.LowMemoryTemporalitySelector
	}
	return nil
}

// aggregation is the selector OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION
// names; nil for the default, explicit buckets.
func aggregation(pref string) sdkmetric.AggregationSelector {
	if pref != "base2_exponential_bucket_histogram" {
		return nil
	}
	return func(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
		if k == sdkmetric.InstrumentKindHistogram {
			return sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}
		}
		return sdkmetric.DefaultAggregationSelector(k)
	}
}

// spanExporter keeps what its exporter could not send, rather than have
// the SDK print it.
type spanExporter struct {
	sdktrace.SpanExporter
	lost     *losses
	endpoint string
}

func (e spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.SpanExporter.ExportSpans(ctx, spans); err != nil {
		n := len(spans)
		if r := (*otlp.RejectedError)(nil); errors.As(err, &r) {
			n = int(min(r.N, int64(n)))
		}
		e.lost.add(e.endpoint, err, n, 0)
	}
	return nil
}

// metricExporter keeps what its exporter could not send.
type metricExporter struct {
	sdkmetric.Exporter
	lost     *losses
	endpoint string
}

func (e metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if err := e.Exporter.Export(ctx, rm); err != nil {
		e.lost.add(e.endpoint, err, 0, 1)
	}
	return nil
}

// losses is what could not be sent: the first failure, and how much was
// lost in all.
type losses struct {
	mu    sync.Mutex
	first *ExportError
}

func (l *losses) add(endpoint string, err error, spans, metrics int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil {
		l.first = &ExportError{Endpoint: endpoint, Err: err}
	}
	l.first.Spans += spans
	l.first.Metrics += metrics
}

// err is what was lost, nil when nothing was.
func (l *losses) err() *ExportError {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil {
		return nil
	}
	e := *l.first
	return &e
}
