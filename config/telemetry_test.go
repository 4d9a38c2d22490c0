package config

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// TestTelemetry: [telemetry] is read from the user's file, the OTEL_*
// variables that are set are kept as they are, and unknown protocols and
// exporters are errors placed in the file.
func TestTelemetry(t *testing.T) {
	user := "[telemetry]\nendpoint = \"http://gpu:4318\"\nprotocol = \"grpc\"\ntraces = \"console\"\n" +
		"log_content = true\nresource_attributes = { team = \"infra\" }\n"
	l, err := Load(setup(t, user, "", map[string]string{"OTEL_SERVICE_NAME": "farm", "OTEL_EXPORTER_OTLP_HEADERS": "k=v",
		"LATHE_EVAL_TASK": "fix", "OTEL_UNRELATED": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	tel := l.Telemetry
	if tel.Endpoint != "http://gpu:4318" || tel.Protocol != ProtocolGRPC || tel.Traces != ExporterConsole || !tel.LogContent ||
		tel.ResourceAttributes["team"] != "infra" {
		t.Errorf("telemetry %+v", tel)
	}
	want := map[string]string{"OTEL_SERVICE_NAME": "farm", "OTEL_EXPORTER_OTLP_HEADERS": "k=v", "LATHE_EVAL_TASK": "fix"}
	if !maps.Equal(tel.Env, want) {
		t.Errorf("env %v, want %v", tel.Env, want)
	}
	for _, c := range []struct{ file, key string }{
		{"[telemetry]\nprotocol = \"http/json\"\n", "telemetry.protocol"},
		{"[telemetry]\ntraces = \"jaeger\"\n", "telemetry.traces"},
		{"[telemetry]\nmetrics = \"prometheus\"\n", "telemetry.metrics"},
	} {
		_, err := Load(setup(t, c.file, "", nil))
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != c.key || ce.Line != 2 {
			t.Errorf("%q: error %v, want one at line 2 about %s", c.file, err, c.key)
		}
	}
}

// TestProjectCannotSetTelemetry: a project's [telemetry] is ignored, with
// a warning: it could send the session's content to a server of its
// choosing.
func TestProjectCannotSetTelemetry(t *testing.T) {
	user := "[telemetry]\nendpoint = \"http://mine:4318\"\nresource_attributes = { team = \"infra\" }\n"
	for _, project := range []string{
		"[telemetry]\nendpoint = \"http://theirs:4318\"\n",
		"[telemetry]\nlog_content = true\n",
		"[telemetry]\nresource_attributes = { leak = \"yes\" }\n",
		"[telemetry.resource_attributes]\nleak = \"yes\"\n",
	} {
		l, err := Load(setup(t, user, project, nil))
		if err != nil {
			t.Fatal(err)
		}
		if tel := l.Telemetry; tel.Endpoint != "http://mine:4318" || tel.LogContent || len(tel.ResourceAttributes) != 1 {
			t.Errorf("%q: telemetry %+v", project, tel)
		}
		if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "[telemetry] ignored") {
			t.Errorf("%q: warnings %q", project, l.Warnings)
		}
	}
}
