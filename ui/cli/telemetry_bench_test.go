package cli

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/telemetry/otlptest"
)

// BenchmarkTelemetryStartup measures the built binary with telemetry off
// and on: "lathe --version", which sets none of it up whatever the
// variables say, and a one-shot run of one turn against the fake server,
// until lathe exits (the spans and metrics sent on the way out, over
// OTLP/HTTP to a receiver on loopback, included).
func BenchmarkTelemetryStartup(b *testing.B) {
	bin := buildLathe(b)
	rcv := otlptest.New(b, otlptest.HTTP)
	otel := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.Endpoint}
	b.Run("version", func(b *testing.B) { exits(b, bin, nil, nil, "--version") })
	b.Run("version-otel", func(b *testing.B) { exits(b, bin, otel, nil, "--version") })
	srv := ollamatest.New(b)
	home := b.TempDir()
	env := []string{"OLLAMA_HOST=" + srv.URL(), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home,
		"XDG_STATE_HOME=" + home, "LATHE_MODEL=qwen3:8b"}
	script := func() { srv.Script(ollamatest.Reply{Content: "Done."}) }
	b.Run("oneshot", func(b *testing.B) { exits(b, bin, env, script, "-p", "hi", "-C", home) })
	b.Run("oneshot-otel", func(b *testing.B) { exits(b, bin, append(env, otel...), script, "-p", "hi", "-C", home) })
}

// BenchmarkStartupTelemetryLinked measures what linking telemetry costs a
// start with it off: "lathe --version" of the binary against the same code
// built without it (-tags notelemetry), run in turn so that the machine's
// drift touches both alike. linked-cpu-ms and unlinked-cpu-ms are each's
// CPU time a run, ratio the first over the second.
func BenchmarkStartupTelemetryLinked(b *testing.B) {
	linked, unlinked := buildLathe(b), buildLathe(b, "notelemetry")
	var cpu [2]time.Duration
	for b.Loop() {
		for i, bin := range []string{linked, unlinked} {
			cmd := exec.Command(bin, "--version")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
			cpu[i] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
	}
	b.ReportMetric(float64(cpu[0].Microseconds())/1000/float64(b.N), "linked-cpu-ms")
	b.ReportMetric(float64(cpu[1].Microseconds())/1000/float64(b.N), "unlinked-cpu-ms")
	b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "ratio")
}

// exits measures bin run with args and the variables env added, until it
// exits; before each run, before is called. cpu-ms/op is the CPU time the
// process took.
func exits(b *testing.B, bin string, env []string, before func(), args ...string) {
	var cpu time.Duration
	for b.Loop() {
		if before != nil {
			before()
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
