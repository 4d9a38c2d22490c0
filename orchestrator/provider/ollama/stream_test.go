package ollama

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

// chatText sends one user message to the server at url and returns the
// reply's text and last chunk.
func chatText(t *testing.T, c *Client, model string, maxTokens int) (string, provider.Chunk, error) {
	t.Helper()
	var text strings.Builder
	var last provider.Chunk
	req := &provider.Request{Model: provider.ModelInfo{Name: model, NumCtx: 4096},
		Messages: []provider.Message{{Role: "user", Content: "hi"}}, MaxTokens: maxTokens}
	err := c.Chat(t.Context(), req, func(ch provider.Chunk) error {
		text.WriteString(ch.Content)
		last = ch
		return nil
	})
	return text.String(), last, err
}

// ndjsonServer serves body, as is, to every request.
func ndjsonServer(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestShiftOff: every request asks the server not to shift the context,
// so a reply that fills the window stops there with done_reason "length".
func TestShiftOff(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "tiny:1b", ContextLength: 256}))
	srv.Script(ollamatest.Reply{Content: "and on ", Endless: true})
	c := newClient(t, srv.URL())
	req := &provider.Request{Model: provider.ModelInfo{Name: "tiny:1b", NumCtx: 256},
		Messages: []provider.Message{{Role: "user", Content: "tell me a story"}}}
	var last provider.Chunk
	if err := c.Chat(t.Context(), req, func(ch provider.Chunk) error { last = ch; return nil }); err != nil {
		t.Fatal(err)
	}
	sent := srv.ChatRequests()[0]
	if sent.Shift == nil || *sent.Shift {
		t.Fatalf("shift = %v, want false", sent.Shift)
	}
	m := last.Metrics
	if !last.Done || last.DoneReason != "length" || m.PromptTokens+m.CompletionTokens != 256 {
		t.Errorf("last chunk %+v: want done_reason length at the window (256)", last)
	}
	if r := srv.Requests()[len(srv.Requests())-1]; r.Shifts != 0 {
		t.Errorf("the server shifted the context %d times", r.Shifts)
	}
}

// TestBlankLinesSkipped: blank lines between the objects of a stream
// (NDJSON allows them; a proxy may add them) are not errors.
func TestBlankLinesSkipped(t *testing.T) {
	body := "\n\r\n" + `{"message":{"role":"assistant","content":"a"},"done":false}` + "\n  \n\n" +
		`{"message":{"role":"assistant","content":" b"},"done":false}` + "\r\n\t\n" +
		`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":2}` + "\n\n"
	text, last, err := chatText(t, newClient(t, ndjsonServer(t, body)), "m", 0)
	if err != nil || text != "a b" || !last.Done || last.Metrics.CompletionTokens != 2 {
		t.Errorf("text %q, last %+v, err %v", text, last, err)
	}
}

// TestLineFilterPassesBytes: what is not a blank line passes through
// unchanged, however the reads fall.
func TestLineFilterPassesBytes(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the filter's buffer
	in := "\n  \n{\"a\": 1}  \n \t{\"b\":\"" + long + "\"}\r\n\n\n{\"c\":2}"
	want := "{\"a\": 1}  \n \t{\"b\":\"" + long + "\"}\r\n{\"c\":2}"
	for _, oneByte := range []bool{false, true} {
		var r io.Reader = strings.NewReader(in)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		note := &streamNote{}
		f := &lineFilter{r: bufio.NewReaderSize(r, 64<<10), body: io.NopCloser(nil), note: note, atStart: true}
		got, err := io.ReadAll(iotest.HalfReader(f))
		if err != nil || string(got) != want {
			t.Errorf("one byte reads %v: got %d bytes (%v), want %d", oneByte, len(got), err, len(want))
		}
		if note.tooLong {
			t.Error("a 200 KiB line noted as too long")
		}
	}
}

// TestLineTooLong: a line longer than the client reads ends the stream
// with a message that says so, not "the connection closed".
func TestLineTooLong(t *testing.T) {
	body := `{"message":{"role":"assistant","content":"a"},"done":false}` + "\n" +
		`{"message":{"role":"assistant","content":"` + strings.Repeat("y", maxLine+10) + `"},"done":false}` + "\n" +
		`{"message":{"role":"assistant","content":""},"done":true}` + "\n"
	_, _, err := chatText(t, newClient(t, ndjsonServer(t, body)), "m", 0)
	if !errors.Is(err, provider.ErrStreamBroken) || !strings.Contains(err.Error(), "longer than 8 MB") {
		t.Errorf("err = %v", err)
	}
}

// TestRepeatGuard: a reply the server ends because the model wrote one
// token over and over is told as that, not as a broken connection.
func TestRepeatGuard(t *testing.T) {
	for _, tt := range []struct {
		name    string
		content string
		kind    error
	}{
		{"repeating", "Let me see." + strings.Repeat(" a", 40), provider.ErrRepeating},
		{"repeating blanks", strings.Repeat(" \n", 40) + "x", provider.ErrRepeating},
		{"dropped early", "", provider.ErrStreamBroken},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t)
			reply := ollamatest.Reply{Content: tt.content}
			if tt.content == "" {
				reply = ollamatest.Reply{Content: strings.Repeat("a b ", 20), Drop: true, AfterChunks: 20}
			}
			srv.Script(reply)
			_, _, err := chatText(t, newClient(t, srv.URL()), "qwen3:8b", 0)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			if tt.kind == provider.ErrRepeating && !strings.Contains(err.Error(), "the model kept repeating itself") {
				t.Errorf("message %q", err)
			}
		})
	}
}

// TestCachedCountRead: a server that says how much of the prompt it had
// cached (prompt_eval_cached_count, which the official client drops) is
// believed, zero included; without it, nothing is reported.
func TestCachedCountRead(t *testing.T) {
	for _, c := range []struct {
		field    string
		cached   int
		reported bool
	}{{`,"prompt_eval_cached_count":1180`, 1180, true}, {`,"prompt_eval_cached_count":0`, 0, true}, {"", 0, false}} {
		body := `{"message":{"role":"assistant","content":"a"},"done":false}` + "\n" +
			`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":1200` + c.field + `,"eval_count":1}` + "\n"
		_, last, err := chatText(t, newClient(t, ndjsonServer(t, body)), "m", 0)
		if m := last.Metrics; err != nil || m.CachedTokens != c.cached || m.CachedReported != c.reported || m.PromptTokens != 1200 {
			t.Errorf("%q: metrics %+v, err %v; want cached %d reported %v", c.field, m, err, c.cached, c.reported)
		}
	}
}

// BenchmarkLineFilter measures the filter under a stream of chunks read
// as the official client reads them (a bufio.Scanner, line by line).
func BenchmarkLineFilter(b *testing.B) {
	line := `{"model":"qwen3:8b","created_at":"2026-01-02T03:04:05.678Z","message":{"role":"assistant","content":" token"},"done":false}` + "\n"
	body := strings.Repeat(line, 1000)
	b.SetBytes(int64(len(body)))
	for range b.N {
		f := &lineFilter{r: bufio.NewReaderSize(strings.NewReader(body), 64<<10), body: io.NopCloser(nil), note: &streamNote{}, atStart: true}
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			n++
		}
		if n != 1000 {
			b.Fatalf("%d lines", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/chunk")
}
