package ollamatest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// TestRepeatGuard checks llm/server.go's loop guard: a stream whose tokens
// repeat more than 30 times in a row (spaces trimmed, from "" at the start)
// ends after the 31st, with HTTP 200, no done line and no error line.
func TestRepeatGuard(t *testing.T) {
	tests := []struct {
		name      string
		reply     Reply
		density   float64
		wantLines int  // done:false lines
		wantDone  bool // a done line follows
	}{
		{"a looping model", Reply{Content: "a", Endless: true}, 0, 31, false},
		{"31 identical tokens pass", Reply{Content: "a" + strings.Repeat(" a", 30) + "."}, 0, 32, true},
		{"32 identical tokens stop", Reply{Content: "a" + strings.Repeat(" a", 31) + "."}, 0, 31, false},
		{"after other text", Reply{Content: "Well:" + strings.Repeat(" no", 40)}, 0, 2 + 31, false},
		{"whitespace tokens are all equal, and equal the start", Reply{Content: strings.Repeat("\t\n", 20)}, 0, 30, false},
		{"the end of thinking breaks a run", Reply{Thinking: "a" + strings.Repeat(" a", 19), Content: "a" + strings.Repeat(" a", 19)}, 0, 40, true},
		{"at another density", Reply{Content: strings.Repeat("ab", 100)}, 2, 31, false},
		{"the guard comes before a later error line", Reply{Content: "a", Endless: true, ErrorLine: "late", AfterChunks: 99}, 0, 31, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, WithBytesPerToken(tt.density))
			s.Script(tt.reply)
			resp, body := post(t, s, "POST", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}]}`)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" || !strings.HasSuffix(body, "\n") {
				t.Fatalf("status %d, type %q, body ends %q", resp.StatusCode, resp.Header.Get("Content-Type"), body[max(0, len(body)-20):])
			}
			lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
			var done, errs, chunks int
			for _, l := range lines {
				var v struct {
					Done  bool   `json:"done"`
					Error string `json:"error"`
				}
				_ = json.Unmarshal([]byte(l), &v)
				switch {
				case v.Error != "":
					errs++
				case v.Done:
					done++
				default:
					chunks++
				}
			}
			if chunks != tt.wantLines || (done == 1) != tt.wantDone || errs != 0 {
				t.Errorf("%d chunks, %d done lines, %d error lines; want %d, done %v, no error", chunks, done, errs, tt.wantLines, tt.wantDone)
			}
		})
	}
}

// TestRepeatGuardWithTheClient checks what the official client makes of the
// guard's silent end: no error and no done:true chunk, streamed or not. Not
// streamed, the answer is one done:false object with the text so far.
func TestRepeatGuardWithTheClient(t *testing.T) {
	s := New(t)
	s.Script(Reply{Content: "a", Endless: true}, Reply{Thinking: "Hmm.", Content: "a", Endless: true})
	c := newClient(t, s)
	res := chat(t.Context(), c, userChat("qwen3:8b", "hi"))
	if res.err != nil || res.final != nil || res.content != strings.Repeat("a", 31) {
		t.Errorf("streamed: err %v, done %v, content %q; want nil, no done, 31 a", res.err, res.final != nil, res.content)
	}
	req := userChat("qwen3:8b", "hi")
	req.Stream = new(bool)
	req.Tools = api.Tools{{Type: "function", Function: api.ToolFunction{Name: "ls"}}}
	reqJSON, _ := json.Marshal(req)
	resp, body := post(t, s, "POST", "/api/chat", string(reqJSON))
	want := `^\{"model":"qwen3:8b","created_at":"[^"]+","message":\{"role":"assistant","content":"a{31}","thinking":"Hmm\."\},"done":false\}$`
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || !bodyMatches(body, want) {
		t.Errorf("not streamed: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

func TestErrorLineBeforeTheGuard(t *testing.T) {
	s := New(t)
	s.Script(Reply{Content: "a", Endless: true, ErrorLine: "boom", AfterChunks: 10})
	res := chat(t.Context(), newClient(t, s), userChat("qwen3:8b", "hi"))
	if res.err == nil || res.err.Error() != "boom" || len(res.chunks) != 10 {
		t.Errorf("err %v after %d chunks; want boom after 10", res.err, len(res.chunks))
	}
}
