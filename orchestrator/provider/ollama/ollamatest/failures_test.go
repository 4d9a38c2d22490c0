package ollamatest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// TestChatFailures checks each failure mode as the official client surfaces
// it: a StatusError before output, a plain error for an error line, and for a
// dropped connection nil with no done:true line (why lathe must check for
// done itself).
func TestChatFailures(t *testing.T) {
	const text = "one two three four five"
	tests := []struct {
		name       string
		reply      Reply
		noStream   bool
		wantStatus int    // StatusError code; 0: not a StatusError
		wantErr    string // error text (ErrorMessage for a StatusError); "": nil error
		wantChunks int
		wantDone   bool
	}{
		{"busy before output", Reply{Status: 503, Error: "server busy, please try again.  maximum pending requests exceeded"}, false, 503, "server busy, please try again.  maximum pending requests exceeded", 0, false},
		{"runner crash before output", Reply{Status: 500, Error: "model runner has unexpectedly stopped"}, false, 500, "model runner has unexpectedly stopped", 0, false},
		{"status without message", Reply{Status: 404}, false, 404, "not found", 0, false},
		{"error line after 2 chunks", Reply{Content: text, ErrorLine: "an error was encountered while running the model", AfterChunks: 2}, false, 0, "an error was encountered while running the model", 2, false},
		{"error line before any chunk is a 500", Reply{Content: text, ErrorLine: "boom"}, false, 500, "boom", 0, false},
		{"error line past the last chunk", Reply{Content: "a b", ErrorLine: "late", AfterChunks: 99}, false, 0, "late", 2, false},
		{"dropped after 3 chunks", Reply{Content: text, Drop: true, AfterChunks: 3}, false, 0, "", 3, false},
		{"error line without streaming", Reply{Content: text, ErrorLine: "boom", AfterChunks: 2}, true, 500, "boom", 0, false},
		{"status without streaming", Reply{Status: 400, Error: "bad"}, true, 400, "bad", 0, false},
		{"healthy turn for contrast", Reply{Content: text}, false, 0, "", 6, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t)
			s.Script(tt.reply)
			req := userChat("qwen3:8b", "hi")
			if tt.noStream {
				req.Stream = new(bool)
			}
			res := chat(t.Context(), newClient(t, s), req)
			checkErr(t, res.err, tt.wantStatus, tt.wantErr)
			if len(res.chunks) != tt.wantChunks || (res.final != nil) != tt.wantDone {
				t.Errorf("got %d chunks, done %v; want %d, done %v", len(res.chunks), res.final != nil, tt.wantChunks, tt.wantDone)
			}
		})
	}
}

func checkErr(t *testing.T, err error, wantStatus int, wantMsg string) {
	t.Helper()
	var se api.StatusError
	isStatus := errors.As(err, &se)
	switch {
	case wantStatus != 0 && (!isStatus || se.StatusCode != wantStatus || se.ErrorMessage != wantMsg):
		t.Errorf("error %#v, want StatusError %d %q", err, wantStatus, wantMsg)
	case wantStatus == 0 && wantMsg == "" && err != nil:
		t.Errorf("error %v, want nil", err)
	case wantStatus == 0 && wantMsg != "" && (err == nil || isStatus || err.Error() != wantMsg):
		t.Errorf("error %#v, want a plain error %q", err, wantMsg)
	}
}

func TestDropBeforeOutput(t *testing.T) {
	s := New(t)
	s.Script(Reply{Content: "never sent", Drop: true})
	res := chat(t.Context(), newClient(t, s), userChat("qwen3:8b", "hi"))
	if res.err == nil || len(res.chunks) != 0 {
		t.Errorf("err %v with %d chunks; want a transport error and no chunks", res.err, len(res.chunks))
	}
}

// TestHangObservesCancellation checks that a client's cancellation reaches
// the server: the hang reply blocks after two chunks until the request
// context ends, and the server records it.
func TestHangObservesCancellation(t *testing.T) {
	s := New(t)
	s.Script(Reply{Content: "one two three four", Hang: true, AfterChunks: 2})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var chunks int
	err := newClient(t, s).Chat(ctx, userChat("qwen3:8b", "hi"), func(api.ChatResponse) error {
		chunks++
		if chunks == 2 {
			if err := s.WaitHanging(t.Context(), 1); err != nil {
				t.Error(err)
			}
			cancel()
		}
		return nil
	})
	// The official client stops reading without reporting the cancellation
	// (it ignores the scanner's error), so err may be nil: ctx tells.
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Chat: %v, want nil or context.Canceled", err)
	}
	if chunks != 2 {
		t.Errorf("got %d chunks, want 2", chunks)
	}
	waitCtx, stop := context.WithTimeout(t.Context(), 5*time.Second)
	defer stop()
	if err := s.WaitCancelled(waitCtx, 1); err != nil {
		t.Fatal(err)
	}
	if reqs := s.Requests(); !reqs[0].Cancelled || s.Cancelled() != 1 {
		t.Errorf("request Cancelled %v, Cancelled() %d; want true and 1", reqs[0].Cancelled, s.Cancelled())
	}
}

func TestHangBeforeHeaders(t *testing.T) {
	s := New(t)
	s.Script(Reply{Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- newClient(t, s).Chat(ctx, userChat("qwen3:8b", "hi"), func(api.ChatResponse) error { return nil })
	}()
	if err := s.WaitHanging(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Chat: %v, want context.Canceled", err)
	}
	if err := s.WaitCancelled(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
}

func TestWaitGivesUpWithContext(t *testing.T) {
	s := New(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.WaitCancelled(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitCancelled: %v, want context.Canceled", err)
	}
}

// TestCleanupReleasesHang checks that a hang the client never cancels does
// not block the test's cleanup.
func TestCleanupReleasesHang(t *testing.T) {
	ft := newFake(t)
	s := New(ft)
	s.Script(Reply{Content: "a b c", Hang: true, AfterChunks: 1})
	done := make(chan turnResult, 1)
	go func() { done <- chat(context.Background(), newClient(t, s), userChat("qwen3:8b", "hi")) }()
	if err := s.WaitHanging(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	ft.runCleanups()
	res := <-done
	if res.final != nil || len(res.chunks) != 1 {
		t.Errorf("got %d chunks, done %v; want 1 and no done", len(res.chunks), res.final != nil)
	}
	if errs := ft.errors(); len(errs) != 0 {
		t.Errorf("cleanup reported %q", errs)
	}
	if s.Cancelled() != 0 {
		t.Errorf("Cancelled() = %d after a release by cleanup, want 0", s.Cancelled())
	}
}

// TestDropCutsTheBody checks that Drop really breaks the connection: the
// chunked body ends without its terminating chunk, unlike a clean end.
func TestDropCutsTheBody(t *testing.T) {
	s := New(t)
	s.Script(Reply{Content: "one two three", Drop: true, AfterChunks: 1})
	req, err := http.NewRequestWithContext(t.Context(), "POST", s.URL()+"/api/chat",
		strings.NewReader(`{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) || strings.Count(string(body), "\n") != 1 {
		t.Errorf("read %q, %v; want one line, then io.ErrUnexpectedEOF", body, err)
	}
}
