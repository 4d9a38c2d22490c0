package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai/openaitest"
)

var kinds = []openaitest.Kind{openaitest.LlamaCpp, openaitest.VLLM, openaitest.LMStudio, openaitest.Plain}

// chat sends one user message and gathers the reply.
func chat(t *testing.T, c *Client, model string) (text, thinking string, done provider.Chunk, err error) {
	t.Helper()
	var tb, th strings.Builder
	req := &provider.Request{Model: provider.ModelInfo{Name: model, NumCtx: 4096},
		Messages: []provider.Message{{Role: "user", Content: "hi"}}}
	err = c.Chat(t.Context(), req, func(ch provider.Chunk) error {
		tb.WriteString(ch.Content)
		th.WriteString(ch.Thinking)
		if ch.Done {
			done = ch
		}
		return nil
	})
	return tb.String(), th.String(), done, err
}

// TestToolCallsAssembled: calls streamed as deltas come out whole and in
// order, their arguments byte for byte, however the server cuts them:
// one after the other, interleaved by index, whole on the last chunk,
// with the id repeated on every delta, or with no id.
func TestToolCallsAssembled(t *testing.T) {
	calls := []ollamatest.ToolCall{
		{Name: "read_file", Arguments: json.RawMessage(`{"path":"a/b.go","offset":10}`)},
		{Name: "grep", Arguments: json.RawMessage(`{"pattern":"func (c \\*Client) \"x\"","path":"."}`)},
		{Name: "list_dir"},
	}
	deliveries := []struct {
		name   string
		calls  ollamatest.CallDelivery
		format ollamatest.CallFormat
	}{
		{"separate", ollamatest.CallsSeparate, ""},
		{"interleaved", ollamatest.CallsTogether, ""},
		{"whole on the finish chunk", ollamatest.CallsOnDone, ""},
		{"id repeated", ollamatest.CallsTogether, ollamatest.CallFormatHarmony},
		{"no id", ollamatest.CallsSeparate, ollamatest.CallFormatLegacy},
	}
	for _, kind := range kinds {
		for _, d := range deliveries {
			t.Run(string(kind)+"/"+d.name, func(t *testing.T) {
				srv := openaitest.New(t, kind)
				srv.Script(ollamatest.Reply{Content: "Reading.", ToolCalls: calls, Calls: d.calls, CallFormat: d.format})
				text, _, done, err := chat(t, New(Options{BaseURL: srv.URL()}), "qwen3:8b")
				if err != nil {
					t.Fatal(err)
				}
				if text != "Reading." || !done.Done || done.DoneReason != "stop" {
					t.Errorf("text %q, done %+v", text, done)
				}
				want := []string{`read_file {"path":"a/b.go","offset":10}`, `grep {"pattern":"func (c \\*Client) \"x\"","path":"."}`, `list_dir {}`}
				var got []string
				for _, c := range done.ToolCalls {
					got = append(got, c.Name+" "+string(c.Arguments))
					if (c.ID == "") != (d.format == ollamatest.CallFormatLegacy) {
						t.Errorf("call %s: id %q", c.Name, c.ID)
					}
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
}

// TestUsageAndReasoning: the usage chunk's counts and the reasoning, in
// each server's field, reach the Done chunk and the thinking.
func TestUsageAndReasoning(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			srv := openaitest.New(t, kind)
			srv.Script(ollamatest.Reply{Thinking: "Let me think.", Content: "Done."})
			text, thinking, done, err := chat(t, New(Options{BaseURL: srv.URL()}), "qwen3:8b")
			if err != nil {
				t.Fatal(err)
			}
			sent := srv.Requests()[0]
			if text != "Done." || thinking != "Let me think." || done.Metrics.PromptTokens != sent.PromptTokens ||
				done.Metrics.CompletionTokens != 6 {
				t.Errorf("text %q thinking %q metrics %+v (prompt sent %d)", text, thinking, done.Metrics, sent.PromptTokens)
			}
			if !strings.Contains(string(sent.Body), `"stream_options":{"include_usage":true}`) {
				t.Errorf("usage not asked for: %s", sent.Body)
			}
			if reported := kind != openaitest.VLLM; done.Metrics.CachedReported != reported {
				t.Errorf("cached reported %v, want %v", done.Metrics.CachedReported, reported)
			}
		})
	}
}

// TestStreamWithoutFinishIsBroken: a stream that ends, even cleanly with
// [DONE], without a finish_reason is a failure; so are a dropped
// connection and an error event.
func TestStreamWithoutFinishIsBroken(t *testing.T) {
	for _, kind := range kinds {
		for _, r := range []ollamatest.Reply{
			{Content: "partial answer here", DoneReason: openaitest.NoFinish},
			{Content: "partial answer here", Drop: true, AfterChunks: 3},
			{Content: "partial answer here", ErrorLine: "CUDA error: out of memory", AfterChunks: 3},
		} {
			t.Run(string(kind), func(t *testing.T) {
				srv := openaitest.New(t, kind)
				srv.Script(r)
				_, _, done, err := chat(t, New(Options{BaseURL: srv.URL()}), "qwen3:8b")
				if !errors.Is(err, provider.ErrStreamBroken) || done.Done {
					t.Fatalf("err %v, done %v: want a broken stream", err, done.Done)
				}
				if r.ErrorLine != "" && !strings.Contains(err.Error(), "CUDA error: out of memory") {
					t.Errorf("message %q", err)
				}
			})
		}
	}
}

// TestOverflowClassified: a prompt longer than the window is the
// overflow error, whichever way the server words it.
func TestOverflowClassified(t *testing.T) {
	for _, kind := range []openaitest.Kind{openaitest.LlamaCpp, openaitest.VLLM, openaitest.Plain} {
		t.Run(string(kind), func(t *testing.T) {
			srv := openaitest.New(t, kind, openaitest.WithModels(openaitest.Model{Name: "m", Window: 64}))
			c := New(Options{BaseURL: srv.URL()})
			req := &provider.Request{Model: provider.ModelInfo{Name: "m", NumCtx: 64},
				Messages: []provider.Message{{Role: "user", Content: strings.Repeat("long ", 100)}}}
			err := c.Chat(t.Context(), req, func(provider.Chunk) error { return nil })
			if !errors.Is(err, provider.ErrContextOverflow) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

// TestErrorsClassified: what a person must act on is told as such.
func TestErrorsClassified(t *testing.T) {
	t.Run("no jinja", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.LlamaCpp, openaitest.WithoutJinja())
		c := New(Options{BaseURL: srv.URL()})
		req := &provider.Request{Model: provider.ModelInfo{Name: "qwen3:8b"}, Messages: []provider.Message{{Role: "user", Content: "hi"}},
			Tools: []provider.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}}}
		err := c.Chat(t.Context(), req, func(provider.Chunk) error { return nil })
		if !errors.Is(err, provider.ErrNoToolSupport) || !strings.Contains(err.Error(), "--jinja") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("unknown model", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.VLLM)
		_, _, _, err := chat(t, New(Options{BaseURL: srv.URL()}), "nope")
		if !errors.Is(err, provider.ErrModelNotFound) || !strings.Contains(err.Error(), "lathe pulls models only from Ollama") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("key refused", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.VLLM, openaitest.WithAPIKey("sekrit"))
		_, _, _, err := chat(t, New(Options{BaseURL: srv.URL(), APIKey: "wrong", APIKeyEnv: "VLLM_KEY"}), "qwen3:8b")
		if err == nil || !strings.Contains(err.Error(), "$VLLM_KEY") || strings.Contains(err.Error(), "wrong") {
			t.Errorf("err = %v", err)
		}
		srv.Script(ollamatest.Reply{Content: "ok"})
		if text, _, _, err := chat(t, New(Options{BaseURL: srv.URL(), APIKey: "sekrit"}), "qwen3:8b"); err != nil || text != "ok" {
			t.Errorf("with the key: %q, %v", text, err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		down := httptest.NewServer(http.NotFoundHandler())
		down.Close()
		_, _, _, err := chat(t, New(Options{BaseURL: down.URL + "/v1"}), "m")
		if !errors.Is(err, provider.ErrUnreachable) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestSilentTruncationDetected: LM Studio cuts a prompt longer than its
// window without a word; the next request, which holds every message of
// the one before, is counted shorter than it, and lathe says so.
func TestSilentTruncationDetected(t *testing.T) {
	srv := openaitest.New(t, openaitest.LMStudio, openaitest.WithModels(openaitest.Model{Name: "m", Window: 200}))
	c := New(Options{BaseURL: srv.URL()})
	msgs := []provider.Message{{Role: "user", Content: "hi"}}
	send := func() provider.Metrics {
		t.Helper()
		srv.Script(ollamatest.Reply{Content: strings.Repeat("word ", 20)})
		var m provider.Metrics
		req := &provider.Request{Model: provider.ModelInfo{Name: "m", NumCtx: 200}, Messages: msgs}
		if err := c.Chat(t.Context(), req, func(ch provider.Chunk) error { m = ch.Metrics; return nil }); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, provider.Message{Role: "assistant", Content: strings.Repeat("word ", 20)},
			provider.Message{Role: "user", Content: strings.Repeat("more ", 60)})
		return m
	}
	if m := send(); m.Truncated {
		t.Errorf("first request: %+v", m)
	}
	if m := send(); m.Truncated {
		t.Errorf("second request, within the window: %+v", m)
	}
	if m := send(); !m.Truncated {
		t.Errorf("third request, past the window: %+v, want Truncated", m)
	}
}

// TestOverflowCounts: the counts in a server's overflow message are
// read, the request's and the window; llama.cpp's shared cache filling up
// is told apart, with its advice.
func TestOverflowCounts(t *testing.T) {
	for _, c := range []struct {
		msg            string
		prompt, window int
	}{
		{"request (4487 tokens) exceeds the available context size (4096 tokens), try increasing it", 4487, 4096},
		{"This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens.", 9000, 8192},
		{"The input (5000 tokens) is longer than the model's context length (4096 tokens).", 5000, 4096},
		{"the input length exceeds the context length", 0, 0},
	} {
		if p, w := counts(c.msg); p != c.prompt || w != c.window {
			t.Errorf("counts(%q) = %d, %d; want %d, %d", c.msg, p, w, c.prompt, c.window)
		}
	}
	srv := openaitest.New(t, openaitest.LlamaCpp)
	srv.Script(ollamatest.Reply{Content: "half of it", ErrorLine: openaitest.KVFull, AfterChunks: 2})
	_, _, _, err := chat(t, New(Options{BaseURL: srv.URL()}), "qwen3:8b")
	ov, ok := provider.OverflowOf(err)
	if !errors.Is(err, provider.ErrContextOverflow) || !ok || !ov.Shared || !strings.Contains(ov.Advice, "--no-kv-unified") {
		t.Errorf("err = %v, overflow %+v", err, ov)
	}
}
