package orchestrator

import (
	"context"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai"
	"lathe/orchestrator/provider/openai/openaitest"
	"lathe/tools"
)

// onOllamaV1 wires a session to a fake Ollama's OpenAI-compatible API,
// its model running with window tokens, loaded or not; contextLength is
// the config's context_length (0 for none).
func onOllamaV1(t *testing.T, window int, loaded bool, contextLength int, opts ...envOption) (*env, *openaitest.Server) {
	t.Helper()
	srv := openaitest.New(t, openaitest.Ollama, openaitest.WithModels(openaitest.Model{Name: "onetool:latest", Window: window}))
	if loaded {
		srv.Load("onetool")
	}
	e := newEnv(t, nil, append([]envOption{func(o *Options) {
		o.Config.Model = "onetool"
		o.Provider = openai.New(openai.Options{BaseURL: srv.URL(), Options: o.Config.Options, ContextLength: contextLength})
	}}, opts...)...)
	return e, srv
}

// TestOllamaV1Truncation: Ollama's /v1 cuts a prompt longer than its
// window to fit, silently, the count pinned at the window. With the model
// not loaded when the session began and context_length set larger than
// the window Ollama then runs it with, the estimate lets such a prompt
// go: lathe finds the window in /api/ps once the model is loaded, says
// the prompt was cut, and counts nothing of it as cached.
func TestOllamaV1Truncation(t *testing.T) {
	prose := &probe{name: "read", kind: tools.KindRead, log: &callLog{}, fn: func(context.Context, map[string]any) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat("The file goes on about the lexer and its tokens. ", 180), Summary: "read"}, nil
	}}
	e, srv := onOllamaV1(t, 4096, false, 8192, withTools(prose))
	srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"b"}`)}},
		ollamatest.Reply{Content: "Done."})
	if _, err := e.run(t.Context(), "read them"); err != nil {
		t.Fatal(err)
	}
	var truncated []bool
	for _, r := range srv.Requests() {
		if r.Path == "/v1/chat/completions" {
			truncated = append(truncated, r.Truncated)
		}
	}
	var told []string
	for _, w := range warnings(e.events) {
		if strings.Contains(w, "the server cut the conversation to fit its window, silently") {
			told = append(told, w)
		}
	}
	if len(truncated) != 3 || !truncated[2] || len(told) != 1 {
		t.Fatalf("the server cut %v, lathe told %q", truncated, warnings(e.events))
	}
	if tf := turnsFinished(e.events)[2]; tf.PromptTokens != 4096 || tf.Timing.CachedTokens != 0 {
		t.Errorf("the prompt cut to the window: %d tokens, %+v", tf.PromptTokens, tf.Timing)
	}
}

// TestOllamaV1Shift: a reply that runs past Ollama's window goes on, the
// context shifted, as far as ten windows: lathe stops reading it past
// the window, says why, and goes on from a summary as when a reply fills
// the window.
func TestOllamaV1Shift(t *testing.T) {
	e, srv := onOllamaV1(t, 4096, true, 0)
	srv.Script(ollamatest.Reply{Content: "and on ", Endless: true},
		ollamatest.Reply{Content: "A story was being written."},
		ollamatest.Reply{Content: "The end."})
	res, err := e.run(t.Context(), "write a long story")
	if err != nil || res.Text != "The end." {
		t.Fatalf("res %+v, err %v", res, err)
	}
	first := turnsFinished(e.events)[0]
	if first.CompletionTokens > 4097 || first.DoneReason != "length" {
		t.Errorf("the first reply: %d tokens, %q", first.CompletionTokens, first.DoneReason)
	}
	var told bool
	for _, w := range warnings(e.events) {
		told = told || strings.Contains(w, "the reply ran past the server's window") && strings.Contains(w, "lathe stopped reading it there")
	}
	if !told {
		t.Errorf("warnings %q", warnings(e.events))
	}
}
