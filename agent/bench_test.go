package agent

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/internal/ollamatest"
	"lathe/prompts"
	"lathe/tools"
)

// instantClient answers every chat at once from memory: a reply of 40
// content chunks that calls the read tool on odd requests and answers on
// even ones. It isolates the loop's own cost from HTTP and JSON.
type instantClient struct {
	calls  int
	chunks []api.ChatResponse
	call   api.ChatResponse
	done   api.ChatResponse
}

func newInstantClient() *instantClient {
	c := &instantClient{}
	for _, p := range ollamatest.SplitPieces(strings.Repeat("Reading the file to see what it holds. ", 5)) {
		c.chunks = append(c.chunks, api.ChatResponse{Message: api.Message{Role: "assistant", Content: p}})
	}
	args := api.NewToolCallFunctionArguments()
	args.Set("path", "main.go")
	c.call = api.ChatResponse{Message: api.Message{Role: "assistant", ToolCalls: []api.ToolCall{
		{ID: "call_bench001", Function: api.ToolCallFunction{Name: "read", Arguments: args}}}}}
	c.done = api.ChatResponse{Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "stop",
		Metrics: api.Metrics{PromptEvalCount: 100, EvalCount: 40, EvalDuration: 1e9}}
	return c
}

func (c *instantClient) Chat(_ context.Context, _ *api.ChatRequest, fn api.ChatResponseFunc) error {
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

func (c *instantClient) Show(context.Context, *api.ShowRequest) (*api.ShowResponse, error) {
	return &api.ShowResponse{Capabilities: nil, ModelInfo: map[string]any{}}, nil
}

func (c *instantClient) List(context.Context) (*api.ListResponse, error) {
	return &api.ListResponse{}, nil
}

func benchSession(c Client) *Session {
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	return New(Options{
		Client:   c,
		Tools:    tools.NewRegistry(&probe{name: "read", readOnly: true, log: &callLog{}}, &probe{name: "write", log: &callLog{}}),
		Approver: allow{},
		Log:      zerolog.Nop(),
		Config:   cfg,
		Env:      prompts.Env{Dir: "/src/project", OS: "linux", Arch: "amd64", Git: true},
	})
}

// BenchmarkTurn measures the agent's cost per turn (one model call,
// its streamed chunks, one tool call and its result). Each op is a run of
// two turns, reported per turn.
func BenchmarkTurn(b *testing.B) {
	b.Run("in-process", func(b *testing.B) {
		c := newInstantClient()
		b.ReportAllocs()
		for b.Loop() {
			s := benchSession(c)
			if _, err := s.Run(b.Context(), "read main.go", func(Event) {}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/turn")
	})
	b.Run("fake-server-http", func(b *testing.B) {
		srv := ollamatest.New(b)
		base, _ := url.Parse(srv.URL())
		client := api.NewClient(base, &http.Client{})
		reply := ollamatest.Reply{Func: func(req api.ChatRequest) ollamatest.Reply {
			if req.Messages[len(req.Messages)-1].Role == "tool" {
				return ollamatest.Reply{Content: "It holds the main function."}
			}
			return ollamatest.Reply{Content: "Reading the file.", ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"main.go"}`)}}
		}}
		b.ReportAllocs()
		for b.Loop() {
			srv.Script(reply, reply)
			s := benchSession(client)
			if _, err := s.Run(b.Context(), "read main.go", func(Event) {}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/turn")
	})
}
