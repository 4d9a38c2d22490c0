package ollama

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/internal/streamtest"
)

// replyLines is a reply of n tokens as Ollama streams it, a line a token
// and the done line.
func replyLines(n int) (lines []string, text string) {
	var all strings.Builder
	for i := range n {
		tok := fmt.Sprintf("token %d ", i)
		all.WriteString(tok)
		lines = append(lines, fmt.Sprintf(`{"model":"m","created_at":"2026-01-02T03:04:05.123456789Z","message":{"role":"assistant","content":%q},"done":false}`+"\n", tok))
	}
	lines = append(lines, `{"model":"m","created_at":"2026-01-02T03:04:05Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":1}`+"\n")
	return lines, all.String()
}

// TestChatGathersFastStream: a reply streamed faster than
// Options.Gather is read a batch of lines at a time, its first
// token as soon as it comes, and comes out whole.
func TestChatGathersFastStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const gap, gather = 5 * time.Millisecond, 30 * time.Millisecond
		lines, want := replyLines(120)
		srv := &streamtest.Server{ContentType: "application/x-ndjson", Lines: lines, Gap: gap}
		c := New(Options{URL: &url.URL{Scheme: "http", Host: "ollama.test"}, HTTP: &http.Client{Transport: srv}, Gather: gather})
		start := time.Now()
		var first, done time.Duration = -1, -1
		var text strings.Builder
		req := &provider.Request{Model: provider.ModelInfo{Name: "m", NumCtx: 4096},
			Messages: []provider.Message{{Role: "user", Content: "hi"}}}
		err := c.Chat(t.Context(), req, func(ch provider.Chunk) error {
			if first < 0 {
				first = time.Since(start)
			}
			if ch.Done {
				done = time.Since(start)
			}
			text.WriteString(ch.Content)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if end := time.Since(start); end != done {
			t.Errorf("Chat returned %v after the done line; want at once", end-done)
		}
		if text.String() != want {
			t.Errorf("text %q\nwant %q", text.String(), want)
		}
		if first != 0 {
			t.Errorf("the first token came %v after it was written; want at once", first)
		}
		reads := srv.Bodies[0].Reads()
		if max := len(lines)*int(gap)/int(gather) + 4; reads > max {
			t.Errorf("%d lines took %d reads; want at most %d", len(lines), reads, max)
		}
	})
}
