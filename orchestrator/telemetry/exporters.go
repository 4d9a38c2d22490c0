package telemetry

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"lathe/config"
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
		case sig.protocol == config.ProtocolGRPC:
			exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(sig.url), otlptracegrpc.WithHeaders(sig.headers),
				otlptracegrpc.WithTimeout(exportTimeout), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
		default:
			exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(sig.url), otlptracehttp.WithHeaders(sig.headers),
				otlptracehttp.WithTimeout(exportTimeout), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
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
		case sig.protocol == config.ProtocolGRPC:
			exp, err = otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(sig.url), otlpmetricgrpc.WithHeaders(sig.headers),
				otlpmetricgrpc.WithTimeout(exportTimeout), otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false}))
		default:
			exp, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(sig.url), otlpmetrichttp.WithHeaders(sig.headers),
				otlpmetrichttp.WithTimeout(exportTimeout), otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}))
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

// spanExporter keeps what its exporter could not send, rather than have
// the SDK print it.
type spanExporter struct {
	sdktrace.SpanExporter
	lost     *losses
	endpoint string
}

func (e spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.SpanExporter.ExportSpans(ctx, spans); err != nil {
		e.lost.add(e.endpoint, err, len(spans), 0)
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
