package orchestrator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
	"lathe/tools/codeindex"
	"lathe/tools/memory"
)

// memoryEnv is a session with the memory tools on a store in a new
// directory, the facts for the prompt read from it.
func memoryEnv(t *testing.T, codeAvailable bool, opts ...envOption) (*env, *sqlite.DB) {
	t.Helper()
	db := sqlitetest.Open(t)
	dir := "/src/project"
	mem := memory.Tools(nil, memory.Options{Dir: dir, Sessions: db, Facts: db, Code: codeindex.NewSearcher(db, nil),
		CodeAvailable: func(context.Context) bool { return codeAvailable }})
	facts := func(ctx context.Context) []string {
		fs, _ := db.Facts(ctx, dir)
		var out []string
		for _, f := range fs {
			out = append(out, f.Text)
		}
		return out
	}
	opts = append([]envOption{func(o *Options) {
		o.Tools = tools.NewRegistry(append(o.Tools.All(), mem...)...)
		o.Facts, o.Recorder, o.Dir = facts, db, dir
	}}, opts...)
	return newEnv(t, nil, opts...), db
}

// requestTools are the names of the tools a chat request offered.
func requestTools(e *env, i int) []string {
	var out []string
	for _, tl := range e.srv.ChatRequests()[i].Tools {
		out = append(out, tl.Function.Name)
	}
	return out
}

// TestRememberAsksAndKeepsThePromptStable: remember asks first (denied
// without an approver that allows it); once allowed, the fact is kept but
// the conversation's system prompt does not change; the next conversation
// has it.
func TestRememberAsksAndKeepsThePromptStable(t *testing.T) {
	ctx := t.Context()
	e, db := memoryEnv(t, false, withApprover(Rules{Denial: "not allowed here"}))
	if _, err := db.AddFact(ctx, "/src/project", "Tests run with make check.", time.Time{}); err != nil {
		t.Fatal(err)
	}
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("remember", `{"fact":"Never edit generated/."}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := e.run(ctx, "remember this"); err != nil {
		t.Fatal(err)
	}
	if res := lastToolResults(t, e.srv); len(res) != 1 || !strings.Contains(res[0].Content, "not allowed here") {
		t.Fatalf("remember without approval: %+v", res)
	}
	if fs, _ := db.Facts(ctx, "/src/project"); len(fs) != 1 {
		t.Fatalf("a fact was kept without approval: %+v", fs)
	}

	e.session.opts.Approver = allow{}
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("remember", `{"fact":"Never edit generated/."}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := e.run(ctx, "remember it, I allow it"); err != nil {
		t.Fatal(err)
	}
	if fs, _ := db.Facts(ctx, "/src/project"); len(fs) != 2 || fs[1].Text != "Never edit generated/." {
		t.Fatalf("facts after approval: %+v", fs)
	}
	reqs := e.srv.ChatRequests()
	system := reqs[0].Messages[0].Content
	if !strings.Contains(system, "- Tests run with make check.") {
		t.Fatalf("the facts are not in the system prompt:\n%s", system)
	}
	for i, r := range reqs {
		if r.Messages[0].Content != system {
			t.Errorf("request %d's system prompt differs from the first's: the prompt cache would miss", i)
		}
	}
	if strings.Contains(system, "generated/") {
		t.Error("a fact remembered during the conversation changed its system prompt")
	}

	if err := e.session.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.srv.Script(ollamatest.Reply{Content: "new"})
	if _, err := e.run(ctx, "a new conversation"); err != nil {
		t.Fatal(err)
	}
	reqs = e.srv.ChatRequests()
	if last := reqs[len(reqs)-1].Messages[0].Content; !strings.Contains(last, "- Never edit generated/.") {
		t.Errorf("the next conversation's prompt lacks the new fact:\n%s", last)
	}
}

// TestMemoryToolsByMode: remember is build mode's; recall and search_code
// every mode's; search_code only when it can answer.
func TestMemoryToolsByMode(t *testing.T) {
	for _, c := range []struct {
		mode      mode.Mode
		available bool
		want      string
	}{
		{mode.Build{}, true, "read write recall search_code remember"},
		{mode.Build{}, false, "read write recall remember"},
		{mode.Ask{}, true, "read recall search_code start_task"},
		{mode.Plan{}, false, "read recall propose_plan"},
	} {
		e, _ := memoryEnv(t, c.available, withMode(c.mode))
		e.srv.Script(ollamatest.Reply{Content: "ok"})
		if _, ok := c.mode.(mode.Plan); ok {
			e.srv.Script(ollamatest.Reply{Content: `{"summary":"","steps":[]}`})
		}
		if _, err := e.run(t.Context(), "hi"); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(requestTools(e, 0), " "); got != c.want {
			t.Errorf("%s mode, search available %v: tools %s, want %s", c.mode.Name(), c.available, got, c.want)
		}
	}
}

// TestRecallLeavesOutThisSession: recall finds the earlier sessions'
// messages, not those of the conversation asking.
func TestRecallLeavesOutThisSession(t *testing.T) {
	ctx := t.Context()
	e, _ := memoryEnv(t, false)
	e.srv.Script(ollamatest.Reply{Content: "The flaky test is TestUpload: it needs a fixed clock."})
	if _, err := e.run(ctx, "why is the upload test flaky?"); err != nil {
		t.Fatal(err)
	}
	first := e.session.Snapshot().ID
	if err := e.session.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("recall", `{"query":"flaky"}`)}},
		ollamatest.Reply{Content: "found it"},
	)
	if _, err := e.run(ctx, "what did we find about the flaky upload test?"); err != nil {
		t.Fatal(err)
	}
	res := lastToolResults(t, e.srv)
	if len(res) != 1 || !strings.Contains(res[0].Content, "session "+first) || !strings.Contains(res[0].Content, "fixed clock") {
		t.Fatalf("recall: %+v", res)
	}
	if n := strings.Count(res[0].Content, "\n- session "); n != 2 {
		t.Errorf("%d messages recalled, want the 2 of the first session only:\n%s", n, res[0].Content)
	}
	if slices.Contains(strings.Fields(res[0].Content), e.session.Snapshot().ID) {
		t.Error("recall found the conversation asking")
	}
}
