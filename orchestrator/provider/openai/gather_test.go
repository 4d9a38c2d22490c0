package openai

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/internal/streamtest"
)

// replyEvents is a reply of n tokens as an OpenAI-compatible server
// streams it: an event a token, the finish, the usage and [DONE].
func replyEvents(n int) (events []string, text string) {
	var all strings.Builder
	const head = `data: {"id":"c1","object":"chat.completion.chunk","created":1767322800,"model":"m","choices":[`
	for i := range n {
		tok := fmt.Sprintf("token %d ", i)
		all.WriteString(tok)
		events = append(events, head+fmt.Sprintf(`{"index":0,"delta":{"content":%q},"finish_reason":null}]}`, tok)+"\n\n")
	}
	events = append(events,
		head+`{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n",
		head+`],"usage":{"prompt_tokens":5,"completion_tokens":`+fmt.Sprint(n)+`,"total_tokens":`+fmt.Sprint(n+5)+`}}`+"\n\n",
		"data: [DONE]\n\n")
	return events, all.String()
}

// TestChatGathersFastStream: a reply streamed faster than
// Options.Gather is read a batch of events at a time, its first
// token as soon as it comes, and comes out whole.
func TestChatGathersFastStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const gap, gather = 5 * time.Millisecond, 30 * time.Millisecond
		events, want := replyEvents(120)
		srv := &streamtest.Server{ContentType: "text/event-stream", Lines: events, Gap: gap}
		c := New(Options{BaseURL: "http://llama.test/v1", HTTP: &http.Client{Transport: srv}, Gather: gather})
		start := time.Now()
		var first time.Duration = -1
		var text strings.Builder
		req := &provider.Request{Model: provider.ModelInfo{Name: "m", NumCtx: 4096},
			Messages: []provider.Message{{Role: "user", Content: "hi"}}}
		err := c.Chat(t.Context(), req, func(ch provider.Chunk) error {
			if first < 0 {
				first = time.Since(start)
			}
			text.WriteString(ch.Content)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if text.String() != want {
			t.Errorf("text %q\nwant %q", text.String(), want)
		}
		if first != 0 {
			t.Errorf("the first token came %v after it was written; want at once", first)
		}
		reads := srv.Bodies[0].Reads()
		if max := len(events)*int(gap)/int(gather) + 4; reads > max {
			t.Errorf("%d events took %d reads; want at most %d", len(events), reads, max)
		}
	})
}

// TestStreamEventsEnding: once the event that finishes a reply is read,
// the usage and [DONE] after it are read as they come.
func TestStreamEventsEnding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		events, _ := replyEvents(1)
		body := streamtest.NewBody()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://llama.test/v1/chat/completions", nil)
		resp, err := streamEvents(time.Hour)(req, func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: body}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		for i, e := range events {
			start := time.Now()
			go func() {
				time.Sleep(time.Millisecond)
				_, _ = io.WriteString(body, e)
			}()
			n, err := resp.Body.Read(buf)
			if err != nil || string(buf[:n]) != e {
				t.Fatalf("event %d: read %q, %v", i, buf[:n], err)
			}
			// The first event is read as it comes, as is every one
			// after the finish; the second one waits for the stream to
			// gather.
			if at := time.Since(start); i != 1 && at != time.Millisecond {
				t.Errorf("event %d came %v after it was written; want at once", i, at-time.Millisecond)
			}
		}
	})
}
