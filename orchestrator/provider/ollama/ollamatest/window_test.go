package ollamatest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// story is a reply much longer than a small window: 400 words.
var story = strings.Repeat("Once upon a time there was a lathe. ", 50)

// runnerShifts is ollamarunner's rule, token by token: with the cache full
// (num_ctx tokens), the next token first discards (num_ctx - keep) / 2
// tokens after the first keep.
func runnerShifts(prompt, eval, numCtx, keep int) int {
	cache, shifts := prompt, 0
	for range eval {
		if cache == numCtx {
			cache -= (numCtx - keep) / 2
			shifts++
		}
		cache++
	}
	return shifts
}

func windowChat(numCtx int, shift *bool, opts map[string]any) *api.ChatRequest {
	req := userChat("small", "Tell me a story.")
	req.Shift = shift
	req.Options = map[string]any{"num_ctx": numCtx}
	for k, v := range opts {
		req.Options[k] = v
	}
	return req
}

// TestShiftFalseStopsAtTheWindow checks shift:false: the reply stops where
// prompt and reply fill num_ctx, with done:true, done_reason "length" and
// prompt_eval_count + eval_count == num_ctx, streamed or not.
func TestShiftFalseStopsAtTheWindow(t *testing.T) {
	for _, tt := range []struct {
		name   string
		reply  Reply
		stream bool
	}{
		{"long content", Reply{Content: story}, true},
		{"endless", Reply{Content: "And then? ", Endless: true}, true},
		{"long content, not streamed", Reply{Content: story}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, WithModels(Model{Name: "small", ContextLength: 4096}))
			s.Script(tt.reply)
			req := windowChat(128, new(bool), nil)
			if !tt.stream {
				req.Stream = new(bool)
			}
			res := chat(t.Context(), newClient(t, s), req)
			if res.err != nil || res.final == nil {
				t.Fatalf("Chat: %v, done %v", res.err, res.final != nil)
			}
			f := res.final
			if f.DoneReason != "length" || f.PromptEvalCount+f.EvalCount != 128 {
				t.Errorf("done_reason %q, prompt_eval_count %d + eval_count %d; want length and a sum of 128", f.DoneReason, f.PromptEvalCount, f.EvalCount)
			}
			chunks := 0
			for _, c := range res.chunks {
				if c.Message.Content != "" {
					chunks++
				}
			}
			if want := 128 - f.PromptEvalCount; tt.stream && chunks != want {
				t.Errorf("%d content chunks, want %d: one a token up to the window", chunks, want)
			}
			if !strings.HasPrefix(strings.Repeat(tt.reply.Content, 200), res.content) || len(res.content) < 200 {
				t.Errorf("content %q: want the reply's start, up to the window", res.content)
			}
			if r := s.Requests()[0]; r.Shifts != 0 || r.PromptTokens != f.PromptEvalCount {
				t.Errorf("Request.Shifts %d, PromptTokens %d; want 0 and %d", r.Shifts, r.PromptTokens, f.PromptEvalCount)
			}
		})
	}
}

// TestShiftKeepsGenerating checks a reply that fills the window with shift
// unset or true: it goes on to the end of the script (done_reason "stop")
// or to num_predict ("length"), nothing on the wire tells, and the server
// records the shifts.
func TestShiftKeepsGenerating(t *testing.T) {
	yes := true
	tests := []struct {
		name       string
		reply      Reply
		shift      *bool
		opts       map[string]any
		wantEval   int // 0: every piece of the reply
		wantReason string
		keep       int
	}{
		{"shift unset, to the end of the script", Reply{Content: story}, nil, nil, 0, "stop", 4},
		{"shift true", Reply{Content: story}, &yes, nil, 0, "stop", 4},
		{"num_keep 20", Reply{Content: story}, nil, map[string]any{"num_keep": 20}, 0, "stop", 20},
		{"endless, to num_predict", Reply{Content: "And then? ", Endless: true}, nil, map[string]any{"num_predict": 500}, 500, "length", 4},
		{"endless, to 10 × num_ctx", Reply{Content: "And then? ", Endless: true}, nil, nil, 1280, "length", 4},
		{"endless, num_predict 0 capped too", Reply{Content: "And then? ", Endless: true}, nil, map[string]any{"num_predict": 0}, 1280, "length", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, WithModels(Model{Name: "small", ContextLength: 4096}))
			s.Script(tt.reply)
			req := windowChat(128, tt.shift, tt.opts)
			reqJSON, _ := json.Marshal(req)
			resp, body := post(t, s, "POST", "/api/chat", string(reqJSON))
			if resp.StatusCode != 200 || strings.Contains(body, "shift") || strings.Contains(body, "error") {
				t.Fatalf("status %d; the body must carry no trace of a shift or error", resp.StatusCode)
			}
			lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
			var final api.ChatResponse
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &final); err != nil || !final.Done {
				t.Fatalf("last line %s: %v", lines[len(lines)-1], err)
			}
			wantEval := tt.wantEval
			if wantEval == 0 {
				wantEval = len(SplitPieces(tt.reply.Content))
			}
			if final.DoneReason != tt.wantReason || final.EvalCount != wantEval || len(lines)-1 != wantEval {
				t.Errorf("done_reason %q, eval_count %d, %d chunks; want %q, %d, %d", final.DoneReason, final.EvalCount, len(lines)-1, tt.wantReason, wantEval, wantEval)
			}
			want := runnerShifts(final.PromptEvalCount, final.EvalCount, 128, tt.keep)
			if got := s.Requests()[0].Shifts; got != want || want == 0 {
				t.Errorf("Request.Shifts %d, want %d (more than 0)", got, want)
			}
		})
	}
}

// TestShiftEmptiesThePromptCache checks that after a shift the next request
// reuses only the num_keep tokens the runner kept.
func TestShiftEmptiesThePromptCache(t *testing.T) {
	for _, keep := range []int{4, 16} {
		s := New(t, WithModels(Model{Name: "small", ContextLength: 4096}))
		s.Script(Reply{Content: story}, Reply{Content: "The end."}, Reply{Content: "Again."})
		c := newClient(t, s)
		first := windowChat(128, nil, map[string]any{"num_keep": keep})
		first.Messages[0].Content = strings.Repeat("Tell me a story about a lathe. ", 6)
		_ = chat(t.Context(), c, first)
		second := *first
		second.Messages = append(append([]api.Message(nil), first.Messages...),
			api.Message{Role: "assistant", Content: "(a story)"}, api.Message{Role: "user", Content: "Shorter."})
		_ = chat(t.Context(), c, &second)
		third := second
		third.Messages = append(append([]api.Message(nil), second.Messages[:1]...), api.Message{Role: "assistant", Content: "x"})
		_ = chat(t.Context(), c, &third)
		reqs := s.Requests()
		if reqs[0].Shifts == 0 || reqs[1].CachedTokens != keep {
			t.Errorf("num_keep %d: first request shifted %d times, second reused %d tokens; want shifts and %d reused", keep, reqs[0].Shifts, reqs[1].CachedTokens, keep)
		}
		if reqs[1].Shifts != 0 || reqs[2].CachedTokens <= keep {
			t.Errorf("num_keep %d: after a request without a shift the cache holds its prompt again: reused %d", keep, reqs[2].CachedTokens)
		}
	}
}

// TestNumPredictDefaults checks num_predict as llm/server.go applies it:
// unset or negative means 10 × num_ctx, 0 means no limit.
func TestNumPredictDefaults(t *testing.T) {
	var words []string
	for i := range 200 {
		words = append(words, fmt.Sprint("w", i))
	}
	long := strings.Join(words, " ") // 200 pieces, none repeated
	tests := []struct {
		opts       map[string]any
		wantEval   int
		wantReason string
	}{
		{nil, 160, "length"},
		{map[string]any{"num_predict": -1}, 160, "length"},
		{map[string]any{"num_predict": 1000}, 160, "length"},
		{map[string]any{"num_predict": 0}, len(SplitPieces(long)), "stop"},
		{map[string]any{"num_predict": 50}, 50, "length"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.opts), func(t *testing.T) {
			s := New(t, WithModels(Model{Name: "tiny", ContextLength: 16}))
			s.Script(Reply{Content: long})
			req := userChat("tiny", "go")
			req.Options = tt.opts
			res := chat(t.Context(), newClient(t, s), req)
			if res.err != nil || res.final == nil || res.final.EvalCount != tt.wantEval || res.final.DoneReason != tt.wantReason {
				t.Fatalf("err %v, final %+v; want eval_count %d, %s", res.err, res.final, tt.wantEval, tt.wantReason)
			}
		})
	}
}

// TestShiftFalseWireBytes checks the final line of a reply stopped by the
// window, byte for byte in shape.
func TestShiftFalseWireBytes(t *testing.T) {
	s := New(t)
	s.Script(Reply{Content: story})
	_, body := post(t, s, "POST", "/api/chat", `{"model":"qwen3:8b","shift":false,"options":{"num_ctx":64},"messages":[{"role":"user","content":"hi"}]}`)
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	last := regexp.MustCompile(`^\{"model":"qwen3:8b","created_at":"[^"]+","message":\{"role":"assistant","content":""\},"done":true,"done_reason":"length","total_duration":\d+,"load_duration":\d+,"prompt_eval_count":(\d+),"prompt_eval_duration":\d+,"eval_count":(\d+),"eval_duration":\d+\}$`)
	m := last.FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("last line %s", lines[len(lines)-1])
	}
	var p, e int
	fmt.Sscan(m[1], &p)
	fmt.Sscan(m[2], &e)
	if p+e != 64 || len(lines)-1 != e {
		t.Errorf("prompt %d + eval %d over %d chunks; want 64 and one chunk a token", p, e, len(lines)-1)
	}
}
