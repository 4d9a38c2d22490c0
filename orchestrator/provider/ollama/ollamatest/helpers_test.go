package ollamatest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
)

// newClient returns the official client pointed at s, as lathe builds it.
func newClient(t *testing.T, s *Server) *api.Client {
	t.Helper()
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

// turnResult is what the official client delivered for one chat call.
type turnResult struct {
	chunks   []api.ChatResponse
	content  string
	thinking string
	calls    []api.ToolCall
	final    *api.ChatResponse // the done:true chunk, if any
	err      error
}

// chat runs one chat call and gathers every chunk the way a correct client
// does: thinking, content and tool calls from every line, the done line
// included.
func chat(ctx context.Context, c *api.Client, req *api.ChatRequest) turnResult {
	var res turnResult
	res.err = c.Chat(ctx, req, func(r api.ChatResponse) error {
		res.chunks = append(res.chunks, r)
		res.content += r.Message.Content
		res.thinking += r.Message.Thinking
		res.calls = append(res.calls, r.Message.ToolCalls...)
		if r.Done {
			res.final = &r
		}
		return nil
	})
	return res
}

func userChat(model, text string) *api.ChatRequest {
	return &api.ChatRequest{Model: model, Messages: []api.Message{{Role: "user", Content: text}}}
}

// post sends body to path and returns the response and its whole body.
func post(t *testing.T, s *Server, method, path, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s %s: %v", method, path, err)
	}
	return resp, string(data)
}

// fakeTB records what New and the server report, so a test can check that
// the fake fails a test when it should. Cleanups run when the test calls
// runCleanups.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Fatalf(format string, args ...any) { f.Errorf(format, args...) }

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTB) runCleanups() {
	f.mu.Lock()
	fns := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

func (f *fakeTB) errors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

// newFake returns a fakeTB whose cleanups also run at the end of t, in case
// the test stops early.
func newFake(t *testing.T) *fakeTB {
	f := &fakeTB{TB: t}
	t.Cleanup(f.runCleanups)
	return f
}
