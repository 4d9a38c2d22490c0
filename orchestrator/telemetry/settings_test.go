package telemetry

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"lathe/config"
)

// TestResolve: telemetry is off unless asked for; the variables win over
// [telemetry], a signal's own over the generic ones; an HTTP endpoint
// gets the signal's path, a signal's own endpoint is taken as it is.
func TestResolve(t *testing.T) {
	tests := []struct {
		name            string
		c               config.Telemetry
		traces, metrics signal // urls and exporters compared
		err             string
	}{
		{name: "nothing set"},
		{name: "disabled", c: config.Telemetry{Endpoint: "http://c:4318", Env: map[string]string{"OTEL_SDK_DISABLED": "true"}}},
		{name: "endpoint in the file", c: config.Telemetry{Endpoint: "http://c:4318/"},
			traces:  signal{exporters: []string{"otlp"}, url: "http://c:4318/v1/traces"},
			metrics: signal{exporters: []string{"otlp"}, url: "http://c:4318/v1/metrics"}},
		{name: "variable over the file", c: config.Telemetry{Endpoint: "http://file:4318",
			Env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://env:4318/otlp"}},
			traces:  signal{exporters: []string{"otlp"}, url: "https://env:4318/otlp/v1/traces"},
			metrics: signal{exporters: []string{"otlp"}, url: "https://env:4318/otlp/v1/metrics"}},
		{name: "grpc", c: config.Telemetry{Protocol: "grpc", Endpoint: "collector:4317"},
			traces:  signal{exporters: []string{"otlp"}, url: "http://collector:4317"},
			metrics: signal{exporters: []string{"otlp"}, url: "http://collector:4317"}},
		{name: "a signal's own endpoint", c: config.Telemetry{Env: map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:4318/custom", "OTEL_METRICS_EXPORTER": "none"}},
			traces: signal{exporters: []string{"otlp"}, url: "http://t:4318/custom"}},
		{name: "console only", c: config.Telemetry{Env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}},
			traces: signal{exporters: []string{"console"}}},
		{name: "both", c: config.Telemetry{Traces: "otlp,console", Metrics: "console"},
			traces:  signal{exporters: []string{"otlp", "console"}, url: "http://localhost:4318/v1/traces"},
			metrics: signal{exporters: []string{"console"}}},
		{name: "none in the variable over the file", c: config.Telemetry{Endpoint: "http://c:4318",
			Env: map[string]string{"OTEL_TRACES_EXPORTER": "none"}},
			metrics: signal{exporters: []string{"otlp"}, url: "http://c:4318/v1/metrics"}},
		{name: "unknown exporter", c: config.Telemetry{Env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}},
			err: `OTEL_TRACES_EXPORTER: unknown exporter "zipkin"`},
		{name: "json", c: config.Telemetry{Endpoint: "http://c:4318", Env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}},
			err: `"http/json" is not a protocol lathe speaks`},
		{name: "not a URL", c: config.Telemetry{Endpoint: "ftp://c"}, err: "is not an http:// or https:// URL"},
	}
	for _, tt := range tests {
		s, err := resolve(tt.c)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		for _, sig := range []struct {
			what      string
			got, want signal
		}{{"traces", s.traces, tt.traces}, {"metrics", s.metrics, tt.metrics}} {
			if !slices.Equal(sig.got.exporters, sig.want.exporters) || sig.got.url != sig.want.url {
				t.Errorf("%s: %s %v to %q, want %v to %q", tt.name, sig.what, sig.got.exporters, sig.got.url,
					sig.want.exporters, sig.want.url)
			}
		}
		if s.off() != (len(tt.traces.exporters)+len(tt.metrics.exporters) == 0) {
			t.Errorf("%s: off %v", tt.name, s.off())
		}
	}
}

// TestResolveHeadersAndResource: headers and resource attributes are read
// as the variables write them (URL-encoded values), a signal's headers
// over the generic ones; service.name comes from OTEL_SERVICE_NAME first;
// lathe eval's variables become lathe.eval.* attributes.
func TestResolveHeadersAndResource(t *testing.T) {
	c := config.Telemetry{Endpoint: "http://c:4318", ServiceName: "file-name",
		ResourceAttributes: map[string]string{"team": "infra", "pool": "a"},
		Env: map[string]string{
			"OTEL_EXPORTER_OTLP_HEADERS":        "Authorization=Basic%20abc, x-team = gpu",
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-team=traces",
			"OTEL_RESOURCE_ATTRIBUTES":          "pool=b,deployment.environment=ci",
			"OTEL_SERVICE_NAME":                 "env-name",
			"LATHE_EVAL_EXPERIMENT":             "12", "LATHE_EVAL_TASK": "fix-bug",
		}}
	s, err := resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"Authorization": "Basic abc", "x-team": "traces"}; !maps.Equal(s.traces.headers, want) {
		t.Errorf("traces headers %v, want %v", s.traces.headers, want)
	}
	if want := map[string]string{"Authorization": "Basic abc", "x-team": "gpu"}; !maps.Equal(s.metrics.headers, want) {
		t.Errorf("metrics headers %v, want %v", s.metrics.headers, want)
	}
	want := map[string]string{"team": "infra", "pool": "b", "deployment.environment": "ci", "service.name": "env-name"}
	if !maps.Equal(s.resource, want) {
		t.Errorf("resource %v, want %v", s.resource, want)
	}
	if want := map[string]string{"lathe.eval.experiment": "12", "lathe.eval.task": "fix-bug"}; !maps.Equal(s.eval, want) {
		t.Errorf("eval %v, want %v", s.eval, want)
	}
	if _, err := resolve(config.Telemetry{Endpoint: "http://c", Env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "novalue"}}); err == nil {
		t.Error("a header without a value was taken")
	}
	s, _ = resolve(config.Telemetry{Endpoint: "http://c"})
	if s.resource["service.name"] != "lathe" {
		t.Errorf("default service name %q", s.resource["service.name"])
	}
}
