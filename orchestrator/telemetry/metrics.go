package telemetry

import (
	"context"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// instruments are the metrics: the GenAI conventions' token usage and
// operation duration, and lathe's prefill and decode rates, cache-hit
// ratio and time to the first token. All are nil without metrics.
type instruments struct {
	tokens     metric.Int64Histogram
	duration   metric.Float64Histogram
	prefill    metric.Float64Histogram
	decode     metric.Float64Histogram
	cacheRatio metric.Float64Histogram
	firstToken metric.Float64Histogram
	load       metric.Float64Histogram
}

func newInstruments(m metric.Meter) (instruments, error) {
	// The buckets the GenAI conventions advise for token counts and
	// durations (seconds); rates in tokens a second.
	tokenBuckets := []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets := []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	rateBuckets := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000}
	ratioBuckets := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99}
	var in instruments
	var errs [7]error
	in.tokens, errs[0] = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens used per model call: the prompt's (input, cached ones included) and the reply's (output)"),
		metric.WithExplicitBucketBoundaries(tokenBuckets...))
	in.duration, errs[1] = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of a model call (chat) or of a whole request (invoke_agent)"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.prefill, errs[2] = m.Float64Histogram("lathe.prefill.rate", metric.WithUnit("{token}/s"),
		metric.WithDescription("Prompt tokens the server read a second, of those not in its cache"),
		metric.WithExplicitBucketBoundaries(rateBuckets...))
	in.decode, errs[3] = m.Float64Histogram("lathe.decode.rate", metric.WithUnit("{token}/s"),
		metric.WithDescription("Reply tokens the server wrote a second"),
		metric.WithExplicitBucketBoundaries(rateBuckets...))
	in.cacheRatio, errs[4] = m.Float64Histogram("lathe.cache.hit_ratio", metric.WithUnit("1"),
		metric.WithDescription("Share of a prompt's tokens the server had in its cache"),
		metric.WithExplicitBucketBoundaries(ratioBuckets...))
	in.firstToken, errs[5] = m.Float64Histogram("lathe.first_token.duration", metric.WithUnit("s"),
		metric.WithDescription("From sending a request to its first token"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.load, errs[6] = m.Float64Histogram("lathe.model.load.duration", metric.WithUnit("s"),
		metric.WithDescription("Time the server spent loading the model before a request"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	for _, err := range errs {
		if err != nil {
			return in, err
		}
	}
	return in, nil
}

// chatSets are the attribute sets of a model call's metrics, made once
// for a model.
type chatSets struct {
	model               string
	base, input, output attribute.Set
	attrs               []attribute.KeyValue
}

func newChatSets(model string, attrs []attribute.KeyValue) chatSets {
	return chatSets{model: model, attrs: attrs, base: attribute.NewSet(attrs...),
		input: with(attrs, keyTokenType.String("input")), output: with(attrs, keyTokenType.String("output"))}
}

// chat records one model call.
func (in instruments) chat(sets chatSets, c chatFigures) {
	if in.tokens == nil {
		return
	}
	ctx := context.Background()
	set := metric.WithAttributeSet(sets.base)
	in.tokens.Record(ctx, int64(c.input), metric.WithAttributeSet(sets.input))
	in.tokens.Record(ctx, int64(c.output), metric.WithAttributeSet(sets.output))
	if c.errorType != "" {
		in.duration.Record(ctx, c.seconds, metric.WithAttributeSet(withError(sets.attrs, c.errorType)))
		return
	}
	in.duration.Record(ctx, c.seconds, set)
	if c.prefillRate > 0 {
		in.prefill.Record(ctx, c.prefillRate, set)
	}
	if c.decodeRate > 0 {
		in.decode.Record(ctx, c.decodeRate, set)
	}
	if c.input > 0 {
		in.cacheRatio.Record(ctx, float64(c.cached)/float64(c.input), set)
	}
	if c.firstToken > 0 {
		in.firstToken.Record(ctx, c.firstToken, set)
	}
	if c.load > 0 {
		in.load.Record(ctx, c.load, set)
	}
}

// agent records one whole request.
func (in instruments) agent(attrs []attribute.KeyValue, seconds float64, errorType string) {
	if in.duration == nil {
		return
	}
	in.duration.Record(context.Background(), seconds, metric.WithAttributeSet(withError(attrs, errorType)))
}

func withError(attrs []attribute.KeyValue, errorType string) attribute.Set {
	if errorType == "" {
		return attribute.NewSet(attrs...)
	}
	return with(attrs, keyErrorType.String(errorType))
}

// with is the set of attrs and more.
func with(attrs []attribute.KeyValue, more ...attribute.KeyValue) attribute.Set {
	return attribute.NewSet(slices.Concat(attrs, more)...)
}

// chatFigures are a model call's figures, for the metrics.
type chatFigures struct {
	input, output, cached   int
	seconds                 float64
	prefillRate, decodeRate float64
	firstToken, load        float64 // seconds
	errorType               string
}
