package config

import (
	"fmt"
	"slices"
)

// Telemetry is [telemetry]: OpenTelemetry export of runs (traces and
// metrics), off unless an endpoint or an exporter is configured here or by
// the standard OTEL_* variables, which win over the file. Only the user's
// own file may set it: a project's could send the session elsewhere.
// Headers, which often hold a key, come only from the environment
// (OTEL_EXPORTER_OTLP_HEADERS).
type Telemetry struct {
	// Endpoint is the collector's OTLP address: "http://host:4318" for
	// http/protobuf (/v1/traces and /v1/metrics go under it),
	// "http://host:4317" for grpc.
	Endpoint string `toml:"endpoint"`
	// Protocol is "http/protobuf" (the default) or "grpc".
	Protocol string `toml:"protocol"`
	// Traces and Metrics name each signal's exporter: "otlp", "console"
	// (stderr: stdout carries the answer) or "none"; empty is otlp when
	// an endpoint is set, none otherwise.
	Traces  string `toml:"traces"`
	Metrics string `toml:"metrics"`
	// ServiceName is the service.name of what lathe exports ("lathe").
	ServiceName string `toml:"service_name"`
	// ResourceAttributes are added to everything exported (team, host
	// pool...); OTEL_RESOURCE_ATTRIBUTES adds to them and wins.
	ResourceAttributes map[string]string `toml:"resource_attributes"`
	// LogContent sends the text of prompts and replies, and tools'
	// arguments and results, with the spans; without it none leaves.
	LogContent bool `toml:"log_content"`

	// Env holds the telemetry variables of the environment that are set
	// (telemetryVars), by name.
	Env map[string]string `toml:"-"`
}

// telemetryVars are the environment variables telemetry reads: the
// OpenTelemetry SDK's own, and those lathe eval gives the runs of its
// attempts.
var telemetryVars = []string{
	"OTEL_SDK_DISABLED",
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
	"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
	"OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_CLIENT_KEY", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY",
	"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION",
	"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
	"LATHE_EVAL_EXPERIMENT", "LATHE_EVAL_SUITE", "LATHE_EVAL_TASK", "LATHE_EVAL_ATTEMPT", "LATHE_EVAL_REP", "LATHE_EVAL_TRY",
	"TRACEPARENT", "TRACESTATE",
}

// Telemetry protocols and exporters, as the OTEL_* variables name them.
const (
	ProtocolHTTP    = "http/protobuf"
	ProtocolGRPC    = "grpc"
	ExporterOTLP    = "otlp"
	ExporterConsole = "console"
	ExporterNone    = "none"
)

// readTelemetryEnv keeps the telemetry variables that are set.
func (l *Loaded) readTelemetryEnv(getenv func(string) string) {
	l.Telemetry.Env = nil
	for _, k := range telemetryVars {
		if v := getenv(k); v != "" {
			if l.Telemetry.Env == nil {
				l.Telemetry.Env = map[string]string{}
			}
			l.Telemetry.Env[k] = v
		}
	}
}

// check returns the key of [telemetry] that holds a value lathe does not
// know, and what is wrong with it.
func (t Telemetry) check() (key, msg string) {
	exporters := []string{"", ExporterOTLP, ExporterConsole, ExporterNone}
	switch {
	case !slices.Contains([]string{"", ProtocolHTTP, ProtocolGRPC}, t.Protocol):
		return "telemetry.protocol", fmt.Sprintf("unknown protocol %q: use %q or %q", t.Protocol, ProtocolHTTP, ProtocolGRPC)
	case !slices.Contains(exporters, t.Traces):
		return "telemetry.traces", fmt.Sprintf("unknown exporter %q: use otlp, console or none", t.Traces)
	case !slices.Contains(exporters, t.Metrics):
		return "telemetry.metrics", fmt.Sprintf("unknown exporter %q: use otlp, console or none", t.Metrics)
	}
	return "", ""
}
