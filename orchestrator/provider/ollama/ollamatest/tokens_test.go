package ollamatest

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

func TestSplitTokens(t *testing.T) {
	tests := []struct {
		in   string
		b    float64
		want []string
	}{
		{"Hello there", 0, []string{"Hello", " there"}},
		{"Hello there", 4, []string{"He", "llo", " th", "ere"}},
		{"Hello there", 2, []string{"H", "el", "lo", " t", "he", "re"}},
		{"Hello there", 8, []string{"Hello", " there"}},
		{"héllo", 1, []string{"h", "é", "l", "l", "o"}},
		{"2024-11-23", 1.9, []string{"2", "0", "24", "-", "1", "1", "-", "2", "3"}},
		{"", 2, nil},
	}
	for _, tt := range tests {
		got := SplitTokens(tt.in, tt.b)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("SplitTokens(%q, %v) = %q, want %q", tt.in, tt.b, got, tt.want)
		}
		for _, p := range got {
			if p == "" || !utf8.ValidString(p) {
				t.Errorf("SplitTokens(%q, %v): bad chunk %q", tt.in, tt.b, p)
			}
		}
	}
}

// TestBytesPerToken checks that a tokenizer density applies to everything a
// real tokenizer decides: prompt_eval_count, the streamed chunks and
// eval_count, and the truncate:false check, per model or for the server.
func TestBytesPerToken(t *testing.T) {
	listing := strings.Repeat("-rw-r--r-- 1 dev dev 2737 Nov 23 18:12 main_test.go\n", 12)
	call := ToolCall{Name: "read", Arguments: json.RawMessage(`{"path":"main_test.go"}`)}
	callBytes := len(`{"name":"read","arguments":{"path":"main_test.go"}}`)
	tests := []struct {
		name    string
		opts    []Option
		model   string
		density float64 // 0: the fixed rule
	}{
		{"fixed rule", nil, "qwen3:8b", 0},
		{"server density", []Option{WithBytesPerToken(2)}, "qwen3:8b", 2},
		{"model density wins", []Option{WithBytesPerToken(2), WithModels(Model{Name: "dense", BytesPerToken: 1.9})}, "dense", 1.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, tt.opts...)
			reply := Reply{Content: "The files are listed.", ToolCalls: []ToolCall{call}}
			s.Script(reply)
			req := userChat(tt.model, listing)
			req.Options = map[string]any{"num_ctx": 1024}
			res := chat(t.Context(), newClient(t, s), req)
			if res.err != nil || res.final == nil {
				t.Fatalf("Chat: %v", res.err)
			}
			prompt := RenderPrompt(*req)
			wantPrompt := (len(prompt) + 3) / 4
			if tt.density > 0 {
				wantPrompt = int(math.Ceil(float64(len(prompt)) / tt.density))
			}
			if res.final.PromptEvalCount != wantPrompt || s.EstimateTokens(*req) != wantPrompt || s.Requests()[0].PromptTokens != wantPrompt {
				t.Errorf("prompt_eval_count %d, Server.EstimateTokens %d, Request.PromptTokens %d; want %d",
					res.final.PromptEvalCount, s.EstimateTokens(*req), s.Requests()[0].PromptTokens, wantPrompt)
			}
			chunks := SplitTokens(reply.Content, tt.density)
			var got []string
			for _, c := range res.chunks {
				if c.Message.Content != "" {
					got = append(got, c.Message.Content)
				}
			}
			if strings.Join(got, "|") != strings.Join(chunks, "|") {
				t.Errorf("content chunks %q, want %q", got, chunks)
			}
			wantEval := len(chunks) + tokensAt(callBytes, tt.density)
			if res.final.EvalCount != wantEval {
				t.Errorf("eval_count %d, want %d chunks + the call's %d tokens", res.final.EvalCount, len(chunks), tokensAt(callBytes, tt.density))
			}
		})
	}
}

// TestBytesPerTokenDecidesOverflow checks truncate:false against the
// density: a prompt that fits at 4 bytes a token fails at 2.
func TestBytesPerTokenDecidesOverflow(t *testing.T) {
	req := userChat("qwen3:8b", strings.Repeat("0123456789 ", 80)) // 880 bytes
	req.Truncate = new(bool)
	req.Options = map[string]any{"num_ctx": 300}
	for _, tt := range []struct {
		density  float64
		wantFail bool
	}{{0, false}, {4, false}, {2, true}} {
		s := New(t, WithBytesPerToken(tt.density))
		if !tt.wantFail {
			s.Script(Reply{Content: "ok"})
		}
		res := chat(t.Context(), newClient(t, s), req)
		if tt.wantFail {
			checkErr(t, res.err, 400, "the input length exceeds the context length")
			if got := s.Requests()[0].PromptTokens; got != s.EstimateTokens(*req) || got <= 300 {
				t.Errorf("density %v: Request.PromptTokens %d, want the whole count, over 300", tt.density, got)
			}
		} else if res.err != nil {
			t.Errorf("density %v: %v, want the prompt to fit", tt.density, res.err)
		}
	}
}

// TestCachedTokensAtDensity checks Request.CachedTokens: the whole tokens
// of the common prefix with the previous prompt, at the model's density.
func TestCachedTokensAtDensity(t *testing.T) {
	s := New(t, WithBytesPerToken(2.5))
	s.Script(Reply{Content: "A."}, Reply{Content: "B."})
	first := api.ChatRequest{Model: "qwen3:8b", Messages: []api.Message{
		{Role: "system", Content: strings.Repeat("Be careful. ", 30)},
		{Role: "user", Content: "one"},
	}}
	second := first
	second.Messages = append(append([]api.Message(nil), first.Messages...),
		api.Message{Role: "assistant", Content: "A."}, api.Message{Role: "user", Content: "two"})
	c := newClient(t, s)
	for _, req := range []api.ChatRequest{first, second} {
		if res := chat(t.Context(), c, &req); res.err != nil {
			t.Fatal(res.err)
		}
	}
	reqs := s.Requests()
	if reqs[0].CachedTokens != 0 {
		t.Errorf("first request: %d cached tokens, want 0", reqs[0].CachedTokens)
	}
	prefix := len(RenderPrompt(first))
	if want := int(float64(prefix) / 2.5); reqs[1].CachedTokens != want || reqs[1].PromptTokens != s.EstimateTokens(second) {
		t.Errorf("second request: %d of %d tokens cached, want %d of %d", reqs[1].CachedTokens, reqs[1].PromptTokens, want, s.EstimateTokens(second))
	}
}

func TestBadDensityFailsNew(t *testing.T) {
	for _, opts := range [][]Option{{WithBytesPerToken(-1)}, {WithModels(Model{Name: "m", BytesPerToken: math.Inf(1)})}} {
		ft := newFake(t)
		New(ft, opts...)
		if errs := ft.errors(); len(errs) != 1 || !strings.Contains(errs[0], "want a positive number") {
			t.Errorf("errors %q", errs)
		}
	}
}

// TestCountTokensDense: digits and punctuation count at their own
// density: a listing of numbered files comes to about 2.2 bytes a token
// beside prose at 4, as llama3.2's tokenizer counted them; without a
// dense density, the count is the plain one.
func TestCountTokensDense(t *testing.T) {
	var listing strings.Builder
	for i := range 400 {
		fmt.Fprintf(&listing, "data_%03d.log\n", i)
	}
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 100)
	if got := float64(listing.Len()) / float64(CountTokens(listing.String(), 4, 1.25)); got < 2 || got > 2.4 {
		t.Errorf("listing: %.2f bytes a token", got)
	}
	if got := float64(len(prose)) / float64(CountTokens(prose, 4, 1.25)); got < 3.7 {
		t.Errorf("prose: %.2f bytes a token", got)
	}
	for _, s := range []string{prose, listing.String(), "x"} {
		if CountTokens(s, 0, 0) != tokensAt(len(s), 0) || CountTokens(s, 3, 0) != tokensAt(len(s), 3) {
			t.Errorf("without a dense density, %q counts otherwise", s[:1])
		}
		if n := WholeTokens(s, 4, 1.25); n > CountTokens(s, 4, 1.25) || n < CountTokens(s, 4, 1.25)-1 {
			t.Errorf("whole tokens %d, tokens %d", n, CountTokens(s, 4, 1.25))
		}
	}
}
