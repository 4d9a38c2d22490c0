package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai/openaitest"
)

// endless serves a chat completion whose stream never ends: write is
// called again and again, each time flushed, until the client goes.
func endless(t *testing.T, write func(w http.ResponseWriter, i int)) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i := 0; r.Context().Err() == nil; i++ {
			write(w, i)
			if rc.Flush() != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return New(Options{BaseURL: srv.URL + "/v1"})
}

// sse is a chunk event with delta as its choice's delta.
func sse(delta map[string]any) string {
	b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": delta}}})
	return "data: " + string(b) + "\n\n"
}

func endlessRequest() *provider.Request {
	return &provider.Request{Model: provider.ModelInfo{Name: "m", NumCtx: 4096},
		Messages: []provider.Message{{Role: "user", Content: "go"}}}
}

// TestEndlessTextStopped: a server that streams content, or reasoning,
// without end is stopped once the reply's text outgrows what its window
// allows (it took 5.4 GB in 25 s), and the error says which bound.
func TestEndlessTextStopped(t *testing.T) {
	for _, field := range []string{"content", "reasoning_content"} {
		t.Run(field, func(t *testing.T) {
			c := endless(t, func(w http.ResponseWriter, _ int) {
				fmt.Fprint(w, sse(map[string]any{field: strings.Repeat("blah ", 2000)}))
			})
			got := 0
			err := c.Chat(t.Context(), endlessRequest(), func(ch provider.Chunk) error {
				got += len(ch.Content) + len(ch.Thinking)
				return nil
			})
			limit := max(4096, 8192) * bytesPerToken
			if !errors.Is(err, provider.ErrStreamBroken) || !strings.Contains(err.Error(), "the reply's text grew past 262.1 kB") {
				t.Fatalf("err = %v", err)
			}
			if got > limit {
				t.Errorf("%d bytes of text handed on, more than the %d the window allows", got, limit)
			}
		})
	}
}

// TestInterruptStopsReading: once the context is done, not one more
// chunk is read or handed on, though the server has sent many more.
func TestInterruptStopsReading(t *testing.T) {
	batch := strings.Repeat(sse(map[string]any{"content": "blah "}), 50)
	c := endless(t, func(w http.ResponseWriter, _ int) { fmt.Fprint(w, batch) })
	ctx, cancel := context.WithCancel(t.Context())
	after := 0
	err := c.Chat(ctx, endlessRequest(), func(provider.Chunk) error {
		if ctx.Err() != nil {
			after++
		}
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || after > 0 {
		t.Fatalf("err = %v, %d chunks handed on after the interrupt", err, after)
	}
}

// TestCallsPastTheLimitDropped: of a reply with a thousand tool calls,
// those past the request's MaxToolCalls are dropped as they come and
// counted, however the server delivers them.
func TestCallsPastTheLimitDropped(t *testing.T) {
	calls := make([]ollamatest.ToolCall, 1000)
	for i := range calls {
		calls[i] = ollamatest.ToolCall{Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, i))}
	}
	deliveries := []struct {
		name   string
		calls  ollamatest.CallDelivery
		format ollamatest.CallFormat
	}{
		{"separate", ollamatest.CallsSeparate, ""},
		{"interleaved", ollamatest.CallsTogether, ""},
		{"whole on the finish chunk", ollamatest.CallsOnDone, ""},
		{"id repeated, interleaved", ollamatest.CallsTogether, ollamatest.CallFormatHarmony},
		{"no id", ollamatest.CallsSeparate, ollamatest.CallFormatLegacy},
	}
	for _, d := range deliveries {
		t.Run(d.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.LlamaCpp, openaitest.WithModels(openaitest.Model{Name: "m", Window: 1 << 20}))
			srv.Script(ollamatest.Reply{ToolCalls: calls, Calls: d.calls, CallFormat: d.format})
			req := endlessRequest()
			req.Model.NumCtx, req.MaxToolCalls = 1<<20, 9
			var done provider.Chunk
			err := New(Options{BaseURL: srv.URL()}).Chat(t.Context(), req, func(ch provider.Chunk) error {
				if ch.Done {
					done = ch
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(done.ToolCalls) != 9 || done.DroppedCalls != 991 {
				t.Fatalf("%d calls kept, %d dropped; want 9 and 991", len(done.ToolCalls), done.DroppedCalls)
			}
			for i, c := range done.ToolCalls {
				if want := fmt.Sprintf(`{"path":"f%d.go"}`, i); string(c.Arguments) != want {
					t.Errorf("call %d: %s, want %s", i, c.Arguments, want)
				}
			}
		})
	}
}

// TestLongEventRefused: an event longer than maxEventBytes, on one line
// or on many data lines, stops the stream with an error that says so
// (the client's own said "bufio.Scanner: token too long").
func TestLongEventRefused(t *testing.T) {
	line := strings.Repeat("x", 1<<20)
	for name, write := range map[string]func(w http.ResponseWriter, i int){
		"one line": func(w http.ResponseWriter, i int) {
			if i == 0 {
				fmt.Fprint(w, "data: ")
			}
			fmt.Fprint(w, line)
		},
		"many lines": func(w http.ResponseWriter, _ int) { fmt.Fprint(w, "data: "+line+"\n") },
	} {
		t.Run(name, func(t *testing.T) {
			err := endless(t, write).Chat(t.Context(), endlessRequest(), func(provider.Chunk) error { return nil })
			if !errors.Is(err, provider.ErrStreamBroken) || !strings.Contains(err.Error(), "sent an event of more than 16.8 MB") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
