package otlp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// decodeBoth decodes into want the request the official exporter sends
// to a collector at the URL export is given, and ours into got.
func decodeBoth(t *testing.T, export func(url string) error, ours []byte, want, got proto.Message) {
	t.Helper()
	ch := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ch <- b
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	if err := export(srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(<-ch, want); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(ours, got); err != nil {
		t.Fatalf("not a request: %v", err)
	}
}

// allValues are attributes of every type there is.
func allValues() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("s", "text ✓"), attribute.String("empty.s", ""),
		attribute.Int64("i", -42), attribute.Int64("zero", 0), attribute.Float64("f", 2.5),
		attribute.Float64("zero.f", 0), attribute.Bool("b", true), attribute.Bool("no", false),
		attribute.StringSlice("ss", []string{"a", "", "c"}), attribute.Int64Slice("is", []int64{1, 0, -3}),
		attribute.Float64Slice("fs", []float64{0.5, 0}), attribute.BoolSlice("bs", []bool{true, false}),
		{Key: "bytes", Value: attribute.ByteSliceValue([]byte{0, 1, 2})},
		{Key: "slice", Value: attribute.SliceValue(attribute.StringValue("x"), attribute.Int64Value(7))},
		{Key: "map", Value: attribute.MapValue(attribute.String("k", "v"), attribute.Int("n", 3))},
		{Key: "nothing", Value: attribute.Value{}},
	}
}

// spans makes spans of every shape the SDK ends: roots and children,
// a remote parent, links, events, statuses, kinds, a trace state,
// dropped attributes, events and links, two scopes and two resources.
func spans(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	limits := sdktrace.NewSpanLimits()
	limits.EventCountLimit, limits.LinkCountLimit = 2, 1
	res1 := resource.NewSchemaless(attribute.String("service.name", "lathe"), attribute.Int("n", 1))
	res2 := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "other"))
	tp1 := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res1), sdktrace.WithRawSpanLimits(limits))
	tp2 := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res2))
	a := tp1.Tracer("lathe", trace.WithInstrumentationVersion("1.2.3"), trace.WithSchemaURL("https://x/schema"),
		trace.WithInstrumentationAttributes(attribute.String("scope.attr", "v")))
	b := tp1.Tracer("")
	c := tp2.Tracer("other")

	at := time.Unix(1_700_000_000, 123456789)
	ts, _ := trace.ParseTraceState("vendor=value,other=x")
	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5},
		TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote)
	ctx, root := a.Start(ctx, "invoke_agent lathe", trace.WithTimestamp(at), trace.WithAttributes(allValues()...))
	_, chat := a.Start(ctx, "chat qwen3", trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(at.Add(time.Millisecond)),
		trace.WithLinks(trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.String("why", "retry")}},
			trace.Link{SpanContext: root.SpanContext()}))
	for i := range 3 {
		chat.AddEvent("event", trace.WithTimestamp(at.Add(time.Duration(i+2)*time.Millisecond)),
			trace.WithAttributes(attribute.Int("i", i)))
	}
	chat.SetStatus(codes.Error, "stream_broken")
	chat.End(trace.WithTimestamp(at.Add(10 * time.Millisecond)))
	_, tool := b.Start(ctx, "execute_tool read_file", trace.WithSpanKind(trace.SpanKindInternal))
	tool.SetStatus(codes.Ok, "ignored")
	tool.End()
	for _, k := range []trace.SpanKind{trace.SpanKindServer, trace.SpanKindProducer, trace.SpanKindConsumer} {
		_, s := c.Start(context.Background(), "kind", trace.WithSpanKind(k))
		s.End()
	}
	root.End(trace.WithTimestamp(at.Add(time.Second)))
	return rec.Ended()
}

// TestTracesAsTheOfficialExporter holds the encoding of spans to the
// official exporter's: the same request, field for field.
func TestTracesAsTheOfficialExporter(t *testing.T) {
	ss := spans(t)
	var want, got coltracepb.ExportTraceServiceRequest
	decodeBoth(t, func(url string) error {
		exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(url+"/v1/traces"),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{}))
		if err != nil {
			return err
		}
		return exp.ExportSpans(context.Background(), ss)
	}, Traces(ss), &want, &got)
	// The official exporter groups by resource in a map's order.
	order := func(r *coltracepb.ExportTraceServiceRequest) {
		slices.SortFunc(r.ResourceSpans, func(x, y *tracepb.ResourceSpans) int {
			return strings.Compare(x.GetSchemaUrl(), y.GetSchemaUrl())
		})
	}
	order(&want)
	order(&got)
	if len(want.ResourceSpans) != 2 {
		t.Fatalf("the official exporter sent %d resources, want 2", len(want.ResourceSpans))
	}
	if !proto.Equal(&want, &got) {
		t.Errorf("the request differs from the official exporter's:\n got %s\nwant %s",
			prototext.Format(&got), prototext.Format(&want))
	}
}

// metrics collects metrics of every kind: sums, gauges, histograms
// (explicit and exponential) of both number types, with exemplars, and a
// summary.
func metrics(t *testing.T) *metricdata.ResourceMetrics {
	t.Helper()
	reader := sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(func(k sdkmetric.InstrumentKind) metricdata.Temporality {
		if k == sdkmetric.InstrumentKindCounter {
			return metricdata.DeltaTemporality
		}
		return metricdata.CumulativeTemporality
	}))
	exp := sdkmetric.NewView(sdkmetric.Instrument{Name: "exp.*"},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 20, MaxScale: 5}})
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithView(exp),
		sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", "lathe"))))
	m := mp.Meter("lathe", metric.WithInstrumentationVersion("1.0"))
	other := mp.Meter("other")

	// A sampled span makes exemplars.
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("t").Start(context.Background(), "s")
	defer span.End()
	attrs := metric.WithAttributes(attribute.String("gen_ai.token.type", "input"), attribute.Int("n", 2))

	ic, _ := m.Int64Counter("counter.int", metric.WithUnit("{token}"), metric.WithDescription("a count"))
	ic.Add(ctx, 5, attrs)
	ic.Add(ctx, 7)
	fc, _ := m.Float64UpDownCounter("updown.float")
	fc.Add(ctx, -1.5)
	ig, _ := m.Int64Gauge("gauge.int")
	ig.Record(ctx, 0)
	fg, _ := other.Float64Gauge("gauge.float")
	fg.Record(ctx, 3.25, attrs)
	ih, _ := m.Int64Histogram("hist.int", metric.WithExplicitBucketBoundaries(1, 10, 100))
	for _, v := range []int64{0, 5, 50, 500} {
		ih.Record(ctx, v, attrs)
	}
	fh, _ := m.Float64Histogram("hist.float")
	fh.Record(context.Background(), 0.25)
	eh, _ := m.Float64Histogram("exp.float")
	for _, v := range []float64{0, 0.001, 1, 2, 1000, -3} {
		eh.Record(ctx, v)
	}
	ieh, _ := m.Int64Histogram("exp.int")
	ieh.Record(ctx, 12)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	rm.ScopeMetrics = append(rm.ScopeMetrics, metricdata.ScopeMetrics{
		Metrics: []metricdata.Metrics{{Name: "summary", Data: metricdata.Summary{DataPoints: []metricdata.SummaryDataPoint{{
			Attributes: attribute.NewSet(attribute.String("a", "b")), StartTime: time.Unix(10, 0), Time: time.Unix(20, 0),
			Count: 3, Sum: 6, QuantileValues: []metricdata.QuantileValue{{Quantile: 0, Value: 1}, {Quantile: 0.5, Value: 2}},
		}}}}},
	})
	return &rm
}

// TestMetricsAsTheOfficialExporter holds the encoding of metrics to the
// official exporter's.
func TestMetricsAsTheOfficialExporter(t *testing.T) {
	rm := metrics(t)
	var want, got colmetricpb.ExportMetricsServiceRequest
	decodeBoth(t, func(url string) error {
		exp, err := otlpmetrichttp.New(context.Background(), otlpmetrichttp.WithEndpointURL(url+"/v1/metrics"),
			otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{}))
		if err != nil {
			return err
		}
		return exp.Export(context.Background(), rm)
	}, Metrics(rm), &want, &got)
	kinds := map[string]bool{}
	exemplars := 0
	for _, sm := range want.ResourceMetrics[0].ScopeMetrics {
		for _, m := range sm.Metrics {
			kinds[fmt.Sprintf("%T", m.Data)] = true
			for _, p := range m.GetHistogram().GetDataPoints() {
				exemplars += len(p.Exemplars)
			}
		}
	}
	if len(kinds) != 5 || exemplars == 0 {
		t.Fatalf("the metrics made cover %v with %d exemplars, want 5 kinds and exemplars", kinds, exemplars)
	}
	if !proto.Equal(&want, &got) {
		t.Errorf("the request differs from the official exporter's:\n got %s\nwant %s",
			prototext.Format(&got), prototext.Format(&want))
	}
}
