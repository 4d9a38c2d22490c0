// Package telemetry exports lathe's runs as OpenTelemetry traces and
// metrics, named as the GenAI semantic conventions name them, with what a
// local model server spends its time on besides: loads, prefill and decode
// speeds, the prompt cache, CPU spill, recoveries, sandbox blocks and
// approval waits. It watches a session's events (orchestrator.Observer)
// and never holds a turn up: spans and metrics go out in batches, from
// bounded queues, and what cannot be sent is dropped and told once.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/telemetry/otlp"
)

// Options are what Telemetry is made with.
type Options struct {
	Config config.Telemetry
	// Provider is the kind of model server: "ollama" or "openai" (an
	// OpenAI-compatible one), its gen_ai.provider.name.
	Provider string
	// Server is the model server's URL.
	Server string
	// KeepAlive is how long the server keeps the model loaded after a
	// request: a reload after longer is put down to it.
	KeepAlive time.Duration
	// Version is lathe's, the service's version.
	Version string
	// Console is where the console exporters write: stderr, since stdout
	// carries the answer (the log file under the TUI).
	Console io.Writer
	// Log gets the SDK's own messages, at debug level.
	Log zerolog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Telemetry exports the runs of a session. It is an orchestrator.Observer.
type Telemetry struct {
	o      Options
	set    settings
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	tracer trace.Tracer
	inst   instruments
	parent context.Context // the spans' parent: TRACEPARENT's, or none
	server string          // the model server's host, and port
	port   int
	lost   *losses

	mu       sync.Mutex
	lastUsed time.Time // the end of the last reply, for the cause of a reload
}

var _ orchestrator.Observer = (*Telemetry)(nil)

// New sets telemetry up as the config asks; nil, and no error, when it
// asks for none: then nothing is made and nothing will connect. An
// unknown protocol or exporter, or an endpoint that is not a URL, is an
// error. The exporters connect only when they first send.
func New(ctx context.Context, o Options) (*Telemetry, error) {
	set, err := resolve(o.Config)
	if err != nil || set.off() {
		return nil, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Console == nil {
		o.Console = io.Discard
	}
	// The exporters of traces and of metrics write from their own
	// goroutines: one document at a time.
	o.Console = &lockedWriter{w: o.Console}
	t := &Telemetry{o: o, set: set, lost: &losses{}, parent: context.Background()}
	t.server, t.port = hostPort(o.Server)
	// The SDK reports through globals: its errors and log lines go to
	// lathe's debug log, and what could not be sent is told once, at the
	// end, in lathe's words (Close).
	log := o.Log
	otel.SetLogger(funcr.New(func(prefix, args string) { log.Debug().Str("sdk", prefix).Msg(args) }, funcr.Options{Verbosity: 1}))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Debug().Err(err).Msg("telemetry") }))
	res, err := t.resource(ctx)
	if err != nil {
		return nil, err
	}
	if len(set.traces.exporters) > 0 {
		if t.tp, err = t.tracerProvider(ctx, res); err != nil {
			return nil, err
		}
		t.tracer = t.tp.Tracer("lathe", trace.WithInstrumentationVersion(o.Version))
	} else {
		t.tracer = noop.NewTracerProvider().Tracer("lathe")
	}
	if len(set.metrics.exporters) > 0 {
		if t.mp, err = t.meterProvider(ctx, res); err != nil {
			return nil, err
		}
		if t.inst, err = newInstruments(t.mp.Meter("lathe")); err != nil {
			return nil, err
		}
	}
	if set.parent != "" {
		carrier := propagation.MapCarrier{"traceparent": set.parent, "tracestate": set.state}
		t.parent = propagation.TraceContext{}.Extract(t.parent, carrier)
	}
	return t, nil
}

// resource describes what exports: the service, its version, the host,
// and the attributes configured.
func (t *Telemetry) resource(ctx context.Context) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{attribute.String("service.version", t.o.Version)}
	for k, v := range t.set.resource {
		attrs = append(attrs, attribute.String(k, v))
	}
	for k, v := range t.set.eval {
		attrs = append(attrs, attribute.String(k, v))
	}
	res, err := resource.New(ctx, resource.WithTelemetrySDK(), resource.WithHost(), resource.WithAttributes(attrs...))
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	return res, nil
}

// Close sends what is still queued and stops the exporters, within ctx.
// What could not be sent, during the run or now, is the error: an
// *ExportError.
func (t *Telemetry) Close(ctx context.Context) error {
	// The spans and the metrics go at once: lathe waits for the slower.
	var errs [2]error
	var wg sync.WaitGroup
	if t.tp != nil {
		wg.Go(func() { errs[0] = t.tp.Shutdown(ctx) })
	}
	if t.mp != nil {
		wg.Go(func() { errs[1] = t.mp.Shutdown(ctx) })
	}
	wg.Wait()
	if e := t.lost.err(); e != nil {
		return e
	}
	if err := errors.Join(errs[:]...); err != nil {
		return &ExportError{Err: err}
	}
	return nil
}

// ExportError says that telemetry could not all be sent.
type ExportError struct {
	Endpoint string // where it went; empty for the console
	Spans    int    // spans lost
	Metrics  int    // exports of metrics lost
	Err      error
}

func (e *ExportError) Error() string {
	msg := "telemetry was not all sent"
	if e.Endpoint != "" {
		msg = "telemetry could not be sent to " + e.Endpoint
	}
	msg += ": " + cause(e.Err)
	var lost []string
	if e.Spans > 0 {
		lost = append(lost, plural(e.Spans, "span"))
	}
	if e.Metrics > 0 {
		lost = append(lost, plural(e.Metrics, "export")+" of metrics")
	}
	switch len(lost) {
	case 1:
		msg += " (" + lost[0] + " lost)"
	case 2:
		msg += " (" + lost[0] + " and " + lost[1] + " lost)"
	}
	return msg
}

func (e *ExportError) Unwrap() error { return e.Err }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// cause is what went wrong, in a few words: the system's error for a
// connection that failed ("connection refused"), the error otherwise.
func cause(err error) string {
	if errno := syscall.Errno(0); errors.As(err, &errno) {
		return errno.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time"
	}
	// The collector's own refusals say it in a few words already.
	var se *otlp.StatusError
	var re *otlp.RejectedError
	if errors.As(err, &se) || errors.As(err, &re) {
		return err.Error()
	}
	// Other errors say where they were on the way (`Post "…": dial tcp
	// …: lookup collector: no such host`): the last of it is what went
	// wrong.
	msg := strings.TrimRight(err.Error(), `"`)
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// hostPort is the host and port of the model server's URL.
func hostPort(s string) (string, int) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", 0
	}
	port, _ := strconv.Atoi(u.Port())
	return u.Hostname(), port
}

// lockedWriter serializes the writes of several goroutines to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
