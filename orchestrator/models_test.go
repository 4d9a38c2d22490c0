package orchestrator

import (
	"errors"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

func TestResetStartsANewConversation(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	id := e.session.id
	e.session.Reset(t.Context())
	if e.session.id == id {
		t.Error("Reset kept the session id")
	}
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	msgs := e.srv.ChatRequests()[1].Messages
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Content != "second" {
		t.Errorf("after Reset the request holds %+v, want the system prompt and the new prompt", msgs)
	}
}

func TestSetModelKeepsTheConversation(t *testing.T) {
	models := []ollamatest.Model{{Name: "qwen3:8b"}, {Name: "small:1b", ContextLength: 8192}, {Name: "gemma3:1b", Capabilities: []string{"completion"}}}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(models...)})
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.session.SetModel(t.Context(), "gemma3:1b"); !errors.Is(err, provider.ErrNoToolSupport) {
		t.Fatalf("switching to a model without tools: err = %v", err)
	}
	info, err := e.session.SetModel(t.Context(), "small:1b")
	if err != nil || info.NumCtx != 8192 {
		t.Fatalf("SetModel = %+v, %v", info, err)
	}
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	req := e.srv.ChatRequests()[1]
	if req.Model != "small:1b" || len(req.Messages) != 4 || req.Options["num_ctx"] != float64(8192) {
		t.Errorf("request after SetModel: model %q, %d messages, options %v", req.Model, len(req.Messages), req.Options)
	}
}

// TestContextMeterHolds: what the session says it takes of the window
// survives choosing the model it already uses, and after a compaction is
// an estimate, not zero.
func TestContextMeterHolds(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "one", PromptEvalCount: 1500, EvalCount: 40},
		ollamatest.Reply{Content: "summary of the first exchange"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	if snap := e.session.Snapshot(); snap.Used != 1540 || !snap.Counted {
		t.Fatalf("after a reply: %d (counted %v), want the server's 1,540", snap.Used, snap.Counted)
	}
	if _, err := e.session.SetModel(t.Context(), "qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	if snap := e.session.Snapshot(); snap.Used != 1540 || !snap.Counted {
		t.Errorf("after choosing the same model: %d (counted %v)", snap.Used, snap.Counted)
	}
	if err := e.session.Compact(t.Context(), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if snap := e.session.Snapshot(); snap.Used == 0 || snap.Counted || snap.Used >= 1540 {
		t.Errorf("after compacting: %d (counted %v), want an estimate below 1,540", snap.Used, snap.Counted)
	}
	// /context and lathe context name the summary's part.
	if u := e.session.Context(); u.Summary == 0 || u.Counted || u.Total != u.System+u.Instructions+u.Tools+u.Summary+u.History+u.ToolResults {
		t.Errorf("after compacting, the window's use: %+v; want a summary part, estimated", u)
	}
}
