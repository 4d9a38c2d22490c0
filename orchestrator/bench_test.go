package orchestrator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai"
	"lathe/orchestrator/provider/openai/openaitest"
	"lathe/prompts"
	"lathe/tools"
)

// instantProvider answers every chat at once from memory: a reply of 40
// content chunks that calls the read tool on odd requests and answers on
// even ones. It isolates the loop's own cost from HTTP and JSON.
type instantProvider struct {
	calls  int
	chunks []provider.Chunk
	call   provider.Chunk
	done   provider.Chunk
}

func newInstantProvider() *instantProvider {
	c := &instantProvider{}
	for _, p := range ollamatest.SplitPieces(strings.Repeat("Reading the file to see what it holds. ", 5)) {
		c.chunks = append(c.chunks, provider.Chunk{Content: p})
	}
	c.call = provider.Chunk{ToolCalls: []provider.ToolCall{{ID: "call_bench001", Name: "read", Arguments: json.RawMessage(`{"path":"main.go"}`)}}}
	c.done = provider.Chunk{Done: true, DoneReason: "stop",
		Metrics: provider.Metrics{PromptTokens: 100, CompletionTokens: 40, EvalDuration: 1e9}}
	return c
}

func (c *instantProvider) Chat(_ context.Context, _ *provider.Request, fn func(provider.Chunk) error) error {
	c.calls++
	for _, ch := range c.chunks {
		if err := fn(ch); err != nil {
			return err
		}
	}
	if c.calls%2 == 1 {
		if err := fn(c.call); err != nil {
			return err
		}
	}
	return fn(c.done)
}

func (c *instantProvider) Model(_ context.Context, name string) (provider.ModelInfo, error) {
	return provider.ModelInfo{Name: name, NumCtx: 32768}, nil
}

func (c *instantProvider) Models(context.Context) ([]provider.ModelSummary, error) { return nil, nil }

func benchSession(p provider.Provider) *Session {
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	return New(Options{
		Provider: p,
		Tools:    tools.NewRegistry(&probe{name: "read", kind: tools.KindRead, log: &callLog{}}, &probe{name: "write", kind: tools.KindWrite, log: &callLog{}}),
		Approver: allow{},
		Log:      zerolog.Nop(),
		Config:   cfg,
		Env:      prompts.Env{Dir: "/src/project", OS: "linux", Arch: "amd64", Git: true},
	})
}

// BenchmarkTurn measures the agent's cost per turn (one model call, its
// streamed chunks, one tool call and its result). Each op is a run of two
// turns, reported per turn.
func BenchmarkTurn(b *testing.B) {
	b.Run("in-process", func(b *testing.B) {
		c := newInstantProvider()
		b.ReportAllocs()
		for b.Loop() {
			s := benchSession(c)
			if _, err := s.Run(b.Context(), "read main.go", func(Event) {}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/turn")
	})
	reply := ollamatest.Reply{Func: func(req api.ChatRequest) ollamatest.Reply {
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return ollamatest.Reply{Content: "It holds the main function."}
		}
		return ollamatest.Reply{Content: "Reading the file.", ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"main.go"}`)}}
	}}
	http := func(b *testing.B, script func(...ollamatest.Reply), p provider.Provider) {
		b.ReportAllocs()
		for b.Loop() {
			script(reply, reply)
			s := benchSession(p)
			if _, err := s.Run(b.Context(), "read main.go", func(Event) {}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/turn")
	}
	b.Run("fake-server-http", func(b *testing.B) {
		srv := ollamatest.New(b)
		http(b, srv.Script, fakeProvider(b, srv, config.Defaults()))
	})
	for _, kind := range []openaitest.Kind{openaitest.LlamaCpp, openaitest.VLLM} {
		b.Run("openai-"+string(kind)+"-http", func(b *testing.B) {
			srv := openaitest.New(b, kind, openaitest.WithModels(openaitest.Model{Name: "qwen3:8b", Window: 32768}))
			http(b, srv.Script, openai.New(openai.Options{BaseURL: srv.URL(), Options: config.Defaults().Options}))
		})
	}
}
