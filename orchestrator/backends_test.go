package orchestrator

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai"
	"lathe/orchestrator/provider/openai/openaitest"
)

// backend is one of lathe's backends on its fake server, for the loop's
// tests that must hold on every backend.
type backend struct {
	name     string
	script   func(...ollamatest.Reply)
	requests func() []api.ChatRequest // the chat requests, in Ollama's form
	bodies   func() [][]byte          // the chat requests as sent
	provider func(config.Config) provider.Provider
	overflow string // how the server words a prompt too long for its window
	openai   bool
}

// backends are Ollama, llama.cpp and vLLM, each with model qwen3:8b and a
// window of window tokens.
func backends(t *testing.T, window int) []backend {
	t.Helper()
	ol := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", ContextLength: window}))
	out := []backend{{name: "ollama", script: ol.Script, requests: ol.ChatRequests,
		bodies: func() [][]byte {
			var b [][]byte
			for _, r := range ol.Requests() {
				if r.Method == http.MethodPost && r.Path == "/api/chat" {
					b = append(b, r.Body)
				}
			}
			return b
		},
		provider: func(cfg config.Config) provider.Provider { return fakeProvider(t, ol, cfg) },
		overflow: "the input length exceeds the context length"}}
	for _, k := range []struct {
		kind     openaitest.Kind
		overflow string
	}{
		{openaitest.LlamaCpp, "request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it"},
		{openaitest.VLLM, "This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens."},
	} {
		srv := openaitest.New(t, k.kind, openaitest.WithModels(openaitest.Model{Name: "qwen3:8b", Window: window}))
		out = append(out, backend{name: string(k.kind), script: srv.Script, requests: srv.ChatRequests, bodies: srv.Bodies,
			provider: func(cfg config.Config) provider.Provider {
				return openai.New(openai.Options{BaseURL: srv.URL(), Options: cfg.Options})
			},
			overflow: k.overflow, openai: true})
	}
	return out
}

// onBackend wires a session with probe tools to b.
func onBackend(t *testing.T, b backend, opts ...envOption) *env {
	t.Helper()
	return newEnv(t, nil, append([]envOption{func(o *Options) { o.Provider = b.provider(o.Config) }}, opts...)...)
}

// TestBackendsMultiTurnToolCalls: calls run, and the next request carries
// the assistant's calls and one result per call, paired by id, in order.
func TestBackendsMultiTurnToolCalls(t *testing.T) {
	for _, b := range backends(t, 32768) {
		t.Run(b.name, func(t *testing.T) {
			e := onBackend(t, b)
			b.script(
				ollamatest.Reply{Content: "Reading both.", ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a.go"}`), call("read", `{"path":"b.go"}`)}},
				ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"c.go"}`)}},
				ollamatest.Reply{Content: "Done."})
			res, err := e.run(t.Context(), "do it")
			if err != nil || res.StopReason != StopDone || res.Turns != 3 || res.Text != "Done." {
				t.Fatalf("res %+v, err %v", res, err)
			}
			reqs := b.requests()
			second := reqs[1].Messages
			asst, results := second[len(second)-3], second[len(second)-2:]
			if len(asst.ToolCalls) != 2 || asst.Content != "Reading both." {
				t.Fatalf("assistant message %+v", asst)
			}
			for i, r := range results {
				if r.Role != "tool" || r.ToolCallID == "" || r.ToolCallID != asst.ToolCalls[i].ID || r.Content != "read "+[]string{"a.go", "b.go"}[i]+" ok" {
					t.Errorf("result %d: %+v (call id %q)", i, r, asst.ToolCalls[i].ID)
				}
			}
			if n := len(toolMessages(reqs[2])); n != 3 {
				t.Errorf("third request holds %d tool results, want 3", n)
			}
		})
	}
}

// TestBackendsParallelCallsInterleaved: parallel calls whose fragments
// arrive interleaved by index (OpenAI-compatible servers) or together
// (Ollama) are run with their own arguments, results in call order.
func TestBackendsParallelCallsInterleaved(t *testing.T) {
	for _, b := range backends(t, 32768) {
		t.Run(b.name, func(t *testing.T) {
			e := onBackend(t, b)
			b.script(ollamatest.Reply{Calls: ollamatest.CallsTogether, ToolCalls: []ollamatest.ToolCall{
				call("read", `{"path":"internal/first/file.go"}`), call("read", `{"path":"second.go"}`),
				call("read", `{"path":"a/very/long/path/to/the/third/file.go"}`)}},
				ollamatest.Reply{Content: "ok"})
			if _, err := e.run(t.Context(), "read three"); err != nil {
				t.Fatal(err)
			}
			var got []string
			reqs := b.requests()
			for _, m := range reqs[len(reqs)-1].Messages {
				if m.Role == "tool" {
					got = append(got, m.Content)
				}
			}
			want := []string{"read internal/first/file.go ok", "read second.go ok", "read a/very/long/path/to/the/third/file.go ok"}
			if !slices.Equal(got, want) {
				t.Errorf("results %q, want %q", got, want)
			}
		})
	}
}

// TestBackendsBrokenStreams: a reply cut off (connection dropped, an
// error event, a stream without its final message) fails the turn as a
// broken stream, and the conversation goes on after it.
func TestBackendsBrokenStreams(t *testing.T) {
	cases := []struct {
		name   string
		reply  ollamatest.Reply
		openai bool // only OpenAI-compatible servers do it
	}{
		{"dropped", ollamatest.Reply{Content: "I will now read the file", Drop: true, AfterChunks: 3}, false},
		{"error event", ollamatest.Reply{Content: "I will now read the file", ErrorLine: "CUDA error", AfterChunks: 3}, false},
		{"no finish_reason", ollamatest.Reply{Content: "I will now read the file", DoneReason: openaitest.NoFinish}, true},
	}
	for _, c := range cases {
		for _, b := range backends(t, 32768) {
			if c.openai && !b.openai {
				continue
			}
			t.Run(c.name+"/"+b.name, func(t *testing.T) {
				e := onBackend(t, b)
				b.script(c.reply)
				if _, err := e.run(t.Context(), "first"); !errors.Is(err, provider.ErrStreamBroken) {
					t.Fatalf("err = %v, want a broken stream", err)
				}
				b.script(ollamatest.Reply{Content: "fine now"})
				if res, err := e.run(t.Context(), "again"); err != nil || res.Text != "fine now" {
					t.Fatalf("after it: %+v, %v", res, err)
				}
			})
		}
	}
}

// TestBackendsOverflow: the server's own words for a prompt too long are
// recognised: the conversation is compacted harder and the turn tried
// again, once.
func TestBackendsOverflow(t *testing.T) {
	for _, b := range backends(t, 32768) {
		t.Run(b.name, func(t *testing.T) {
			e := onBackend(t, b)
			b.script(ollamatest.Reply{Content: "First answer."})
			if _, err := e.run(t.Context(), "first"); err != nil {
				t.Fatal(err)
			}
			b.script(ollamatest.Reply{Status: 400, Error: b.overflow}, ollamatest.Reply{Content: "A summary."},
				ollamatest.Reply{Content: "Recap."})
			res, err := e.run(t.Context(), "recap")
			if err != nil || res.Text != "Recap." {
				t.Fatalf("res %+v, err %v", res, err)
			}
			reqs := b.requests()
			if !isSummaryRequest(reqs[len(reqs)-2]) {
				t.Errorf("no summary was asked for after the overflow")
			}
		})
	}
}

// TestBackendsTextCalls: a call the model wrote as text is recovered on
// every backend.
func TestBackendsTextCalls(t *testing.T) {
	for _, b := range backends(t, 32768) {
		t.Run(b.name, func(t *testing.T) {
			e := onBackend(t, b)
			b.script(ollamatest.Reply{Content: "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call>"},
				ollamatest.Reply{Content: "It is the entry point."})
			res, err := e.run(t.Context(), "what is main.go?")
			if err != nil || res.Recoveries.TextCalls != 1 || res.Text != "It is the entry point." {
				t.Fatalf("res %+v, err %v", res, err)
			}
			asst := b.requests()[1].Messages[2]
			if len(asst.ToolCalls) != 1 || asst.ToolCalls[0].Function.Arguments.String() != `{"path":"main.go"}` {
				t.Errorf("history holds %+v", asst)
			}
		})
	}
}

// TestBackendsAppendOnly: every request starts with the previous one's
// messages, byte for byte, and sends the same tools, byte for byte: what
// Ollama's, llama.cpp's and vLLM's prefix caches need.
func TestBackendsAppendOnly(t *testing.T) {
	for _, b := range backends(t, 32768) {
		t.Run(b.name, func(t *testing.T) {
			e := onBackend(t, b)
			b.script(ollamatest.Reply{Thinking: "hmm", ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a & <b>.go","n":1}`)}},
				ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"c.go"}`)}},
				ollamatest.Reply{Content: "done"})
			if _, err := e.run(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			bodies := b.bodies()
			if len(bodies) != 3 {
				t.Fatalf("%d requests", len(bodies))
			}
			type wire struct {
				Messages []json.RawMessage `json:"messages"`
				Tools    json.RawMessage   `json:"tools"`
			}
			var prev wire
			for i, body := range bodies {
				var w wire
				if err := json.Unmarshal(body, &w); err != nil {
					t.Fatal(err)
				}
				if i > 0 {
					if len(w.Messages) <= len(prev.Messages) {
						t.Fatalf("request %d has %d messages, the one before %d", i+1, len(w.Messages), len(prev.Messages))
					}
					for j, m := range prev.Messages {
						if string(m) != string(w.Messages[j]) {
							t.Errorf("request %d, message %d changed:\n%s\n%s", i+1, j, m, w.Messages[j])
						}
					}
					if string(w.Tools) != string(prev.Tools) || len(w.Tools) < 10 {
						t.Errorf("request %d: tools changed", i+1)
					}
				}
				prev = w
			}
			if !strings.Contains(string(bodies[1]), `a & <b>.go`) && !strings.Contains(string(bodies[1]), `a \u0026 \u003cb\u003e.go`) {
				t.Errorf("the arguments were not sent back: %s", bodies[1])
			}
		})
	}
}
