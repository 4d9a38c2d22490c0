package orchestrator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
)

// undoEnv is a session over the real file tools in a directory, with its
// runs checkpointed in a database.
func undoEnv(t *testing.T, files map[string]string) (*env, string, *sqlite.DB) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	db := sqlitetest.Open(t)
	tr, err := checkpoint.New(db, ws.Dir(), checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	ws.Track(tr)
	e := newEnv(t, nil, func(o *Options) {
		o.Tools, o.Recorder, o.Checkpoints, o.Dir = tools.Default(ws, tools.Options{}), db, tr, ws.Dir()
	})
	return e, dir, db
}

func read(t *testing.T, dir string, names ...string) string {
	t.Helper()
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			b = []byte("-")
		}
		out = append(out, n+"="+string(b))
	}
	return strings.Join(out, " ")
}

func writeCall(path, content string) ollamatest.Reply {
	return ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write_file", `{"path":"`+path+`","content":"`+content+`"}`)}}
}

// TestUndoRedoRewind: three prompts change files; undo takes the last
// back, files and exchange; redo does it again; rewind to the first takes
// all three back. What the model sees after an undo drops the undone
// exchange once, then grows append-only again.
func TestUndoRedoRewind(t *testing.T) {
	e, dir, _ := undoEnv(t, map[string]string{"a.txt": "a0"})
	ctx := t.Context()
	e.srv.Script(
		writeCall("a.txt", "a1"), ollamatest.Reply{Content: "one"},
		writeCall("b.txt", "b1"), ollamatest.Reply{Content: "two"},
		writeCall("a.txt", "a3"), ollamatest.Reply{Content: "three"},
		ollamatest.Reply{Content: "after undo"},
		ollamatest.Reply{Content: "next"},
	)
	for _, p := range []string{"first", "second", "third"} {
		if _, err := e.run(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(t, dir, "a.txt", "b.txt"); got != "a.txt=a3 b.txt=b1" {
		t.Fatalf("after three runs: %s", got)
	}

	plan, err := e.session.PlanUndo(ctx)
	if err != nil || len(plan.Actions) != 1 || plan.Actions[0].Path != "a.txt" || plan.Actions[0].Do != checkpoint.Restore {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	if read(t, dir, "a.txt") != "a.txt=a3" {
		t.Fatal("planning changed a file")
	}
	if _, h, err := e.session.ApplyPlan(ctx, plan, false); err != nil || h == nil || len(h.Messages) != 8 {
		t.Fatalf("undo: %v, history %v", err, h)
	}
	if got := read(t, dir, "a.txt", "b.txt"); got != "a.txt=a1 b.txt=b1" {
		t.Errorf("after undo: %s", got)
	}

	redo, err := e.session.PlanRedo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, h, err := e.session.ApplyPlan(ctx, redo, false); err != nil || len(h.Messages) != 12 {
		t.Fatalf("redo: %v, history %d", err, len(h.Messages))
	}
	if got := read(t, dir, "a.txt", "b.txt"); got != "a.txt=a3 b.txt=b1" {
		t.Errorf("after redo: %s", got)
	}

	// Undo once more, then go on: the model sees two exchanges, then the
	// new prompt, and the next request extends that one.
	plan, _ = e.session.PlanUndo(ctx)
	if _, _, err := e.session.ApplyPlan(ctx, plan, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(ctx, "instead"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(ctx, "more"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	afterUndo, next := reqs[len(reqs)-2], reqs[len(reqs)-1]
	var prompts []string
	for _, m := range afterUndo.Messages {
		if m.Role == "user" {
			prompts = append(prompts, m.Content)
		}
	}
	if strings.Join(prompts, ",") != "first,second,instead" {
		t.Errorf("after the undo the model sees prompts %v", prompts)
	}
	if !extendsFrom(afterUndo, next, 0) {
		t.Error("the request after the undo is not extended append-only by the next")
	}
	if _, err := e.session.PlanRedo(ctx); !errors.Is(err, session.ErrNothingToRedo) {
		t.Errorf("redo after the conversation went on: %v", err)
	}

	// Rewind to the first prompt: every run from it on is taken back.
	turns, err := e.session.Turns(ctx)
	if err != nil || len(turns) != 4 || turns[0].Prompt != "first" || turns[3].Prompt != "more" {
		t.Fatalf("turns %+v, %v", turns, err)
	}
	rewind, err := e.session.PlanRewind(ctx, turns[0].Checkpoint.ID)
	if err != nil || len(rewind.Runs) != 4 || rewind.Runs[0].ID != turns[3].Checkpoint.ID || len(rewind.Actions) != 2 {
		t.Fatalf("rewind plan %+v, %v", rewind, err)
	}
	if read(t, dir, "a.txt") != "a.txt=a1" {
		t.Fatal("planning the rewind changed a file")
	}
	out, h, err := e.session.ApplyPlan(ctx, rewind, false)
	if err != nil || len(out.Done) != 2 || len(h.Messages) != 0 {
		t.Fatalf("rewind: %+v, %v", out, err)
	}
	if got := read(t, dir, "a.txt", "b.txt"); got != "a.txt=a0 b.txt=-" {
		t.Errorf("after rewind: %s", got)
	}
	if turns, err := e.session.Turns(ctx); err != nil || len(turns) != 0 {
		t.Errorf("after rewind: %d runs left to undo, %v", len(turns), err)
	}
}

// TestUndoRefusesAFileChangedSince: a file someone changed after the run
// is left alone, the rest restored.
func TestUndoRefusesAFileChangedSince(t *testing.T) {
	e, dir, _ := undoEnv(t, map[string]string{"a.txt": "a0", "b.txt": "b0"})
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
		call("write_file", `{"path":"a.txt","content":"a1"}`), call("write_file", `{"path":"b.txt","content":"b1"}`)}},
		ollamatest.Reply{Content: "done"})
	if _, err := e.run(t.Context(), "change both"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := e.session.PlanUndo(t.Context())
	if err != nil || !plan.Conflicts() {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	out, _, err := e.session.ApplyPlan(t.Context(), plan, false)
	if err != nil || len(out.Refused) != 1 || out.Refused[0].Path != "b.txt" {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if got := read(t, dir, "a.txt", "b.txt"); got != "a.txt=a0 b.txt=mine" {
		t.Errorf("after undo: %s", got)
	}
}
