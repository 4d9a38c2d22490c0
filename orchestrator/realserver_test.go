package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
)

// chats is the chat requests the server saw, with what it computed.
func chats(srv *ollamatest.Server) []ollamatest.Request {
	var out []ollamatest.Request
	for _, r := range srv.Requests() {
		if r.Path == "/api/chat" {
			out = append(out, r)
		}
	}
	return out
}

// TestSideRequestsKeepThePromptCache: on a template that renders think
// into the prompt, the title request and the next turn find the
// conversation in the server's cache: every request sends one think value.
func TestSideRequestsKeepThePromptCache(t *testing.T) {
	thinker := ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}, ThinkSwitch: true}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(thinker)})
	e.srv.Script(ollamatest.Reply{Thinking: "Easy.", Content: "Hello there."}, ollamatest.Reply{Content: "Greeting"},
		ollamatest.Reply{Content: "Sure."})
	if _, err := e.run(t.Context(), "say hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.session.Titler()(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	reqs := chats(e.srv)
	if len(reqs) != 3 {
		t.Fatalf("%d chat requests", len(reqs))
	}
	first, title, next := reqs[0], reqs[1], reqs[2]
	if title.CachedTokens < first.PromptTokens-1 {
		t.Errorf("the title request found %d of the turn's %d tokens in the cache", title.CachedTokens, first.PromptTokens)
	}
	if next.CachedTokens < first.PromptTokens {
		t.Errorf("the next turn found %d tokens in the cache, fewer than the first turn's %d", next.CachedTokens, first.PromptTokens)
	}
	for i, r := range e.srv.ChatRequests() {
		if r.Think == nil || !r.Think.Bool() {
			t.Errorf("request %d: think %v, want true for every request", i, r.Think)
		}
	}
}

// TestNoThinkForModelsThatDoNot: a model without the thinking capability
// is sent no think value (true would be refused), side requests included.
func TestNoThinkForModelsThatDoNot(t *testing.T) {
	plain := ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(plain)})
	e.srv.Script(ollamatest.Reply{Content: "Hello."}, ollamatest.Reply{Content: "Greeting"})
	if _, err := e.run(t.Context(), "say hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.session.Titler()(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i, r := range e.srv.ChatRequests() {
		if r.Think != nil {
			t.Errorf("request %d sent think %v", i, r.Think)
		}
	}
	if got := e.srv.ChatRequests()[1].Options["num_predict"]; got != float64(24) {
		t.Errorf("the title's num_predict = %v, want 24", got)
	}
}

// TestReplyFillingTheWindow: a reply the server stops at the full window
// is said to have filled it; the conversation is summarized and the model
// goes on from the summary with a note. A second one in the same run stops
// it: the model is looping.
func TestReplyFillingTheWindow(t *testing.T) {
	small := ollamatest.Model{Name: "qwen3:8b", ContextLength: 2048}
	t.Run("goes on", func(t *testing.T) {
		e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(small)})
		e.srv.Script(ollamatest.Reply{Content: "and on ", Endless: true},
			ollamatest.Reply{Content: "The user asked for a story; it was being written."},
			ollamatest.Reply{Content: "The end."})
		res, err := e.run(t.Context(), "write a long story")
		if err != nil || res.StopReason != StopDone || res.Text != "The end." {
			t.Fatalf("res %+v, err %v", res, err)
		}
		var warned, compacted bool
		for _, ev := range e.events {
			switch ev := ev.(type) {
			case Warning:
				warned = warned || ev.Text == "the reply filled the context window (2,048 tokens) and was cut off there"
				if strings.Contains(ev.Text, "num_predict") {
					t.Errorf("warning blames num_predict: %q", ev.Text)
				}
			case Compacted:
				compacted = true
			}
		}
		if !warned || !compacted {
			t.Errorf("warned %v, compacted %v", warned, compacted)
		}
		last := e.srv.ChatRequests()[2]
		if n := len(last.Messages); n != 2 || !strings.Contains(last.Messages[1].Content, prompts.WindowFull()) ||
			!strings.Contains(last.Messages[1].Content, "it was being written") {
			t.Errorf("the request after the summary: %d messages, %+v", n, last.Messages[1:])
		}
		for i, r := range chats(e.srv) {
			if r.PromptTokens > 2048 {
				t.Errorf("request %d: %d tokens, more than the window", i, r.PromptTokens)
			}
		}
	})
	t.Run("again stops", func(t *testing.T) {
		e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(small)})
		e.srv.Script(ollamatest.Reply{Content: "and on ", Endless: true},
			ollamatest.Reply{Content: "A story was being written."},
			ollamatest.Reply{Content: "and on ", Endless: true})
		res, err := e.run(t.Context(), "write a long story")
		if !errors.Is(err, provider.ErrContextOverflow) || !strings.Contains(err.Error(), "keep filling the context window") || res.StopReason != StopError {
			t.Fatalf("res %+v, err %v", res, err)
		}
		// The turn that failed ends with its counts too: the turns add up
		// to the run's usage.
		var sum Usage
		for _, tf := range turnsFinished(e.events) {
			sum.PromptTokens += tf.PromptTokens
			sum.CompletionTokens += tf.CompletionTokens
		}
		if sum != res.Usage || len(turnsFinished(e.events)) != res.Turns {
			t.Errorf("%d turns ended, adding up to %+v; the run: %d turns, %+v", len(turnsFinished(e.events)), sum, res.Turns, res.Usage)
		}
	})
}

// denseRead is a read tool whose results are digits, which tokenizers
// count at about 2 bytes a token.
func denseRead(size int) *probe {
	return &probe{name: "read", kind: tools.KindRead, log: &callLog{}, fn: func(context.Context, map[string]any) (tools.Result, error) {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "%08d\n", i*7919)
		}
		return tools.Result{Content: b.String(), Summary: "read"}, nil
	}}
}

// TestDenseOutputStaysInTheWindow: with a tokenizer denser than 4 bytes a
// token, the window's estimate follows the server's counts: no request
// goes over the window (the server would refuse it), the in-place summary
// included, and compaction does not come back every turn.
func TestDenseOutputStaysInTheWindow(t *testing.T) {
	model := ollamatest.Model{Name: "qwen3:8b", ContextLength: 4096, BytesPerToken: 2}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(model)}, withTools(denseRead(1600)),
		withLimits(func(l *config.Limits) { l.MaxTurns = 30 }))
	var replies []ollamatest.Reply
	for i := range 12 {
		replies = append(replies, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", fmt.Sprintf(`{"path":"f%d"}`, i))}})
	}
	replies = append(replies, ollamatest.Reply{Content: "Read them all."})
	e.srv.Respond(func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "user" && strings.Contains(last.Content, "summary") || req.Messages[0].Content != e.session.messages[0].Content {
			return ollamatest.Reply{Content: "Reading files f0 on; numbers so far."}
		}
		r := replies[0]
		replies = replies[1:]
		return r
	})
	res, err := e.run(t.Context(), "read the files one by one")
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("res %+v, err %v", res, err)
	}
	// Compaction comes before a turn starts: the turns it came before.
	var at []int
	pending := false
	for _, ev := range e.events {
		switch ev := ev.(type) {
		case Compacted:
			pending = true
		case TurnStarted:
			if pending {
				at = append(at, ev.Turn)
			}
			pending = false
		}
	}
	if len(at) == 0 {
		t.Error("no compaction: the window never filled")
	}
	for i := 1; i < len(at); i++ {
		if at[i] == at[i-1]+1 {
			t.Errorf("compactions before turns %v: two turns in a row", at)
			break
		}
	}
	for i, r := range chats(e.srv) {
		if r.PromptTokens > 4096 {
			t.Errorf("request %d: %d tokens, more than the window (refused)", i, r.PromptTokens)
		}
	}
	if got := e.session.win.BytesPerToken(); got > 2.6 {
		t.Errorf("density %v, want about 2", got)
	}
}

// TestResumeKeepsTheCount: a resumed session starts from the server's last
// count, saved with the reply, not from an estimate.
func TestResumeKeepsTheCount(t *testing.T) {
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(ollamatest.Reply{Content: "Hello.", PromptEvalCount: 1234, EvalCount: 56})
	if _, err := e.run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	saved, err := st.Load(t.Context(), e.session.id)
	if err != nil {
		t.Fatal(err)
	}
	if c := saved.Messages[1].Counts; c == nil || *c != (session.Counts{Prompt: 1234, Completion: 56}) {
		t.Fatalf("counts saved with the reply: %+v", c)
	}
	resumed := newEnv(t, nil, withStore(st))
	resumed.srv = e.srv
	if err := resumed.session.ResumeFrom(saved); err != nil {
		t.Fatal(err)
	}
	if _, err := resumed.session.Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if snap := resumed.session.Snapshot(); snap.Used != 1290 || !snap.Counted {
		t.Errorf("after resuming: used %d (counted %v), want the saved count 1,290", snap.Used, snap.Counted)
	}
}

// TestOverflowAdvice: what is said when the window cannot hold the
// conversation depends on what would help.
func TestOverflowAdvice(t *testing.T) {
	overflow := ollamatest.Reply{Status: 400, Error: "the input length exceeds the context length"}
	t.Run("first prompt, window at the model's maximum", func(t *testing.T) {
		e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", ContextLength: 4096})})
		e.srv.Script(overflow)
		_, err := e.run(t.Context(), strings.Repeat("x", 6000))
		want := "the prompt alone (about 1,508 tokens) does not fit the model's context window (4,096 tokens, the model's maximum): shorten it"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	})
	t.Run("later, window at the maximum", func(t *testing.T) {
		e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", ContextLength: 4096})})
		e.srv.Script(ollamatest.Reply{Content: "ok"}, overflow, ollamatest.Reply{Content: "summary"}, overflow)
		if _, err := e.run(t.Context(), "one"); err != nil {
			t.Fatal(err)
		}
		_, err := e.run(t.Context(), "two")
		if err == nil || !strings.Contains(err.Error(), "(4,096 tokens, the model's maximum), even with its older part summarized: start a new session") ||
			strings.Contains(err.Error(), "num_ctx") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("window below the maximum", func(t *testing.T) {
		e := newEnv(t, nil)
		e.srv.Script(overflow)
		_, err := e.run(t.Context(), "hi")
		if err == nil || !strings.Contains(err.Error(), "or raise options.num_ctx in the config (the model allows up to 40,960)") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestCompactNothing: /compact on a conversation with nothing to summarize
// says so, not that the window overflows.
func TestCompactNothing(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.session.Compact(t.Context(), func(Event) {}); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("Compact of a new conversation: %v", err)
	}
	if n := len(e.srv.ChatRequests()); n != 0 {
		t.Errorf("%d chat requests", n)
	}
}

// TestRepeatingModel: the server's repeat guard stops the run with a
// message saying the model looped.
func TestRepeatingModel(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "Sure:" + strings.Repeat(" x", 50)})
	_, err := e.run(t.Context(), "hi")
	if !errors.Is(err, provider.ErrRepeating) {
		t.Errorf("err = %v", err)
	}
}

// TestSkippedModelsAreTold: a default choice that passed over models the
// server could not describe says so once.
func TestSkippedModelsAreTold(t *testing.T) {
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(
		ollamatest.Model{Name: "corrupt:1b", ShowStatus: 500, ShowError: "tensor exceeds file size"},
		ollamatest.Model{Name: "good:1b"},
	)}, func(o *Options) { o.Config.Model = "" })
	e.srv.Script(ollamatest.Reply{Content: "a"}, ollamatest.Reply{Content: "b"})
	for range 2 {
		if _, err := e.run(t.Context(), "hi"); err != nil {
			t.Fatal(err)
		}
	}
	var warnings []string
	for _, ev := range e.events {
		if w, ok := ev.(Warning); ok {
			warnings = append(warnings, w.Text)
		}
	}
	if want := "passed over model corrupt:1b: Ollama answered 500: tensor exceeds file size"; len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", warnings, want)
	}
}

// TestCompactNeverGrows: /compact of a short conversation whose summary
// would take more room than what it summarizes leaves the conversation
// as it was and says there is nothing to gain.
func TestCompactNeverGrows(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "Hi."}, ollamatest.Reply{Content: "Fine."},
		ollamatest.Reply{Content: strings.Repeat("The user greeted the assistant, who answered in kind. ", 12)},
		ollamatest.Reply{Content: "Still here."})
	for _, p := range []string{"hi", "how are you"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	before := e.session.Snapshot().Used
	var events []Event
	err := e.session.Compact(t.Context(), func(ev Event) { events = append(events, ev) })
	var ng *NoGainError
	if !errors.As(err, &ng) || ng.After < ng.Before || !strings.Contains(err.Error(), "nothing to gain") {
		t.Fatalf("err = %v", err)
	}
	if len(events) != 0 || e.session.win.Compaction != nil || e.session.Snapshot().Used != before {
		t.Errorf("the conversation changed: events %v, compaction %v", events, e.session.win.Compaction)
	}
	if _, err := e.run(t.Context(), "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	if last := reqs[len(reqs)-1].Messages; len(last) != 6 || strings.Contains(last[1].Content, "greeted") {
		t.Errorf("the request after: %d messages, %+v", len(last), last[1])
	}
}

// TestDenseResultInItsShare: a listing of numbered files reads at about
// 2.2 bytes a token where lathe's prompt reads at about 4 (a real
// tokenizer, copied by the fake's dense density): the result is sized by
// its own shape, so that it takes no more than its share of the window
// (it took 52%, and compaction then came every turn).
func TestDenseResultInItsShare(t *testing.T) {
	model := ollamatest.Model{Name: "qwen3:8b", ContextLength: 4096, DenseBytesPerToken: 1.25}
	listing := &probe{name: "read", kind: tools.KindRead, log: &callLog{}, fn: func(context.Context, map[string]any) (tools.Result, error) {
		var b strings.Builder
		for i := range 400 {
			fmt.Fprintf(&b, "data_%03d.log\n", i)
		}
		return tools.Result{Content: b.String(), Summary: "400 entries"}, nil
	}}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(model)}, withTools(listing))
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"."}`)}},
		ollamatest.Reply{Content: "400 log files."})
	if _, err := e.run(t.Context(), "look at the files"); err != nil {
		t.Fatal(err)
	}
	reqs := chats(e.srv)
	tf := turnsFinished(e.events)
	// What the second request adds: the call (a few tokens) and the result.
	added := reqs[1].PromptTokens - tf[0].PromptTokens - tf[0].CompletionTokens
	if share := 4096 / 4; added > share+share/10 {
		t.Errorf("the result took %d tokens of the window, more than its share, %d", added, share)
	}
	if msgs := toolMessages(e.srv.ChatRequests()[1]); len(msgs) != 1 || !strings.Contains(msgs[0].Content, "cut to fit") {
		t.Errorf("the listing was not cut: %+v", msgs)
	}
}
