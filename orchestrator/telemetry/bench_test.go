package telemetry

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/prompts"
	"lathe/tools"
)

// instant answers every chat at once from memory: 40 content chunks, a
// call of the read tool on odd requests, the answer on even ones.
type instant struct{ calls int }

func (c *instant) Chat(_ context.Context, _ *provider.Request, fn func(provider.Chunk) error) error {
	c.calls++
	for range 40 {
		if err := fn(provider.Chunk{Content: "word "}); err != nil {
			return err
		}
	}
	if c.calls%2 == 1 {
		call := provider.ToolCall{ID: "call_1", Name: "read", Arguments: json.RawMessage(`{"path":"main.go"}`)}
		if err := fn(provider.Chunk{ToolCalls: []provider.ToolCall{call}}); err != nil {
			return err
		}
	}
	return fn(provider.Chunk{Done: true, DoneReason: "stop",
		Metrics: provider.Metrics{PromptTokens: 1000, CompletionTokens: 40, PromptDuration: 1e9, EvalDuration: 1e9}})
}

func (c *instant) Model(_ context.Context, name string) (provider.ModelInfo, error) {
	return provider.ModelInfo{Name: name, NumCtx: 32768}, nil
}

func (c *instant) Models(context.Context) ([]provider.ModelSummary, error) { return nil, nil }

// readTool reads nothing, at once.
type readTool struct{}

func (readTool) Name() string     { return "read" }
func (readTool) Kind() tools.Kind { return tools.KindRead }
func (readTool) Spec() provider.ToolSpec {
	return provider.ToolSpec{Name: "read", Description: "read a file",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}
func (readTool) Prepare(json.RawMessage) (tools.Call, error) { return readCall{}, nil }

type readCall struct{}

func (readCall) Subject() string { return "main.go" }
func (readCall) Run(context.Context, tools.Caller) (tools.Result, error) {
	return tools.Result{Content: strings.Repeat("line\n", 20), Summary: "20 lines"}, nil
}

// BenchmarkTurn measures what telemetry adds to a turn (one model call of
// 40 chunks, one tool call): the loop alone ("off"), and with spans and
// metrics exported over OTLP/HTTP to a collector on loopback that reads
// and drops them, with and without the content. The export runs beside
// the loop, and its cost is counted. Each op is a run of two turns,
// reported per turn.
func BenchmarkTurn(b *testing.B) {
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	opts := orchestrator.Options{Provider: &instant{}, Tools: tools.NewRegistry(readTool{}), Log: zerolog.Nop(),
		Config: cfg, Env: prompts.Env{Dir: "/src/project", OS: "linux", Arch: "amd64"}}
	run := func(b *testing.B, o orchestrator.Options) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := orchestrator.New(o).Run(b.Context(), "read main.go", func(orchestrator.Event) {}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/turn")
	}
	b.Run("off", func(b *testing.B) { run(b, opts) })
	for _, content := range []string{"false", "true"} {
		name := "otlp-http"
		if content == "true" {
			name += "-content"
		}
		b.Run(name, func(b *testing.B) {
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
			}))
			defer rcv.Close()
			tel, err := New(b.Context(), Options{Config: config.Telemetry{Env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": content}},
				Provider: "ollama", Log: zerolog.Nop()})
			if err != nil {
				b.Fatal(err)
			}
			o := opts
			o.Observer = tel
			run(b, o)
			b.StopTimer()
			if err := tel.Close(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
	}
}
