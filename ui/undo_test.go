package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
	"net/url"
)

// undoModel is a TUI whose requests each write a file through the real
// tools, every call allowed, the runs checkpointed.
func undoModel(t *testing.T) (*loop, string) {
	t.Helper()
	srv := ollamatest.New(t)
	srv.Respond(func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "tool":
			return ollamatest.Reply{Content: "wrote it"}
		case len(req.Tools) == 0 || strings.Contains(last.Content, "title"):
			return ollamatest.Reply{Content: "Notes"}
		}
		args, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": last.Content + "\n"})
		return ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "write_file", Arguments: args}}}
	})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
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
	base, _ := url.Parse(srv.URL())
	cfg := config.Defaults()
	cfg.Model, cfg.Approval.All = "qwen3:8b", true
	l := readyLoop(t, Options{
		Engine: orchestrator.Options{Provider: ollama.New(ollama.Options{URL: base, Options: cfg.Options, KeepAlive: cfg.KeepAlive.Duration}),
			Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(), Config: cfg, Recorder: db, Checkpoints: tr},
		Catalog: db, Dir: ws.Dir(), NoColor: true, Width: 100, Height: 30,
	})
	m := l.m
	for i, p := range []string{"first", "second", "third"} {
		l.enter(p)
		l.until("the answer to "+p, func() bool { return m.run == nil && strings.Count(screen(m), "wrote it") == i+1 })
	}
	return l, filepath.Join(dir, "notes.txt")
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUndoRedoRewindInTheUI: /undo shows what it will restore, with the
// diff, and asks; the exchange taken back stays on screen marked undone;
// /redo does it again; /rewind goes back to before a request chosen,
// once it has shown what it will restore and been told to.
func TestUndoRedoRewindInTheUI(t *testing.T) {
	l, notes := undoModel(t)
	m := l.m
	if got := fileText(t, notes); got != "third\n" {
		t.Fatalf("after three requests: %q", got)
	}
	l.enter("/undo")
	l.until("the undo to be shown", func() bool { return m.dialog != nil })
	s := screen(m)
	for _, want := range []string{"? Undo the last request: third?", "restore notes.txt", "-third", "+second", "y undo", "esc cancel"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the undo dialog lacks %q:\n%s", want, s)
		}
	}
	l.key("y")
	l.until("the undo", func() bool { return strings.Contains(screen(m), "Undone") })
	if got := fileText(t, notes); got != "second\n" {
		t.Errorf("after /undo: %q", got)
	}
	if s := screen(m); !strings.Contains(s, "↶ undone") || !strings.Contains(s, "restored notes.txt") {
		t.Errorf("after /undo:\n%s", s)
	}

	l.enter("/redo")
	l.until("the redo to be shown", func() bool { return m.dialog != nil })
	l.key("y")
	l.until("the redo", func() bool { return strings.Contains(screen(m), "Redone") })
	if got := fileText(t, notes); got != "third\n" {
		t.Errorf("after /redo: %q", got)
	}
	if strings.Contains(screen(m), "↶ undone") {
		t.Errorf("the redone exchange is still marked undone:\n%s", screen(m))
	}

	l.enter("/rewind")
	l.until("the requests to be listed", func() bool { return listed[orchestrator.Turn](m) == 3 })
	if s := screen(m); !strings.Contains(s, "third") || !strings.Contains(s, "first") {
		t.Fatalf("the rewind picker:\n%s", s)
	}
	l.key("down")
	l.key("down") // the first request: the list is newest first
	l.key("enter")
	l.until("the rewind to be shown", func() bool { return m.dialog != nil })
	inOrder(t, screen(m), "? Rewind, undoing the last 3 requests, to before: first?", "restore notes.txt",
		"-third", "+original", "y rewind", "esc cancel")
	if got := fileText(t, notes); got != "third\n" {
		t.Fatalf("the rewind changed a file before it was confirmed: %q", got)
	}
	l.key("y")
	l.until("the rewind", func() bool { return strings.Contains(screen(m), "Rewound: 3 requests undone") })
	if got := fileText(t, notes); got != "original\n" {
		t.Errorf("after /rewind to the first request: %q", got)
	}
	if s := screen(m); !strings.Contains(s, "restored notes.txt. The model no longer sees those exchanges.") {
		t.Errorf("after /rewind:\n%s", s)
	}
	marked := 0
	for _, it := range m.transcript.items {
		if u, ok := it.(*undoneItem); ok {
			if _, prompt := u.inner.(*userItem); prompt {
				marked++
			}
		}
	}
	if marked != 3 {
		t.Errorf("%d prompts marked undone, want 3", marked)
	}

	l.enter("/undo")
	l.until("the answer", func() bool { return strings.Contains(screen(m), "Nothing to undo.") })
}

// TestUndoConflictInTheUI: a file changed since the request is shown with
// its three versions, as two diffs naming what they compare: what changed
// since lathe left it, and what f would make of it; f overwrites it.
func TestUndoConflictInTheUI(t *testing.T) {
	l, notes := undoModel(t)
	m := l.m
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l.enter("/undo")
	l.until("the undo to be shown", func() bool { return m.dialog != nil })
	inOrder(t, screen(m), "! notes.txt: changed since the run, so it is left alone (f overwrites it):",
		"changed since lathe left it:", "--- notes.txt (as lathe left it)", "+++ notes.txt (now)", "-third", "+mine",
		"what f would do:", "--- notes.txt (now)", "+++ notes.txt (before the request)",
		"f undo, overwriting what changed since")
	l.key("pgdown")
	inOrder(t, screen(m), "what f would do:", "-mine", "+second")
	l.key("f")
	l.until("the undo", func() bool { return strings.Contains(screen(m), "Undone") })
	if got := fileText(t, notes); got != "second\n" {
		t.Errorf("after f: %q", got)
	}
}

// inOrder checks that s holds each of want, in that order.
func inOrder(t *testing.T, s string, want ...string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Fatalf("the screen lacks %q after %q:\n%s", w, s[:at], s)
		}
		at += i + len(w)
	}
}

// TestRewindConflictInTheUI: /rewind asks as /undo does: a file changed
// since is shown, left alone unless f overwrites it; esc rewinds nothing.
func TestRewindConflictInTheUI(t *testing.T) {
	l, notes := undoModel(t)
	m := l.m
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rewind := func() {
		l.enter("/rewind")
		l.until("the requests to be listed", func() bool { return listed[orchestrator.Turn](m) == 3 })
		l.key("down")
		l.key("enter") // the second request
		l.until("the rewind to be shown", func() bool { return m.dialog != nil })
	}
	rewind()
	inOrder(t, screen(m), "? Rewind, undoing the last 2 requests, to before: second?",
		"! notes.txt: changed since the run, so it is left alone (f overwrites it):", "changed since lathe left it:",
		"y rewind", "f rewind, overwriting what changed since", "esc cancel")
	l.key("esc")
	l.until("the rewind to be cancelled", func() bool { return strings.Contains(screen(m), "Nothing rewound.") })
	if got := fileText(t, notes); got != "mine\n" {
		t.Fatalf("after esc: %q", got)
	}
	rewind()
	l.key("f")
	l.until("the rewind", func() bool { return strings.Contains(screen(m), "Rewound: 2 requests undone") })
	if got := fileText(t, notes); got != "first\n" {
		t.Errorf("after f: %q", got)
	}
}

// TestRedoNamesTheRequestItRedoes: after three undos, /redo asks about
// the request undone last (the first), whose files it lists, and once
// done leaves the two others marked undone; the next /redo names the
// second (F1).
func TestRedoNamesTheRequestItRedoes(t *testing.T) {
	l, notes := undoModel(t)
	m := l.m
	for _, p := range []string{"third", "second", "first"} {
		l.enter("/undo")
		l.until("the undo of "+p, func() bool { return m.dialog != nil })
		l.key("y")
		l.until("the undo of "+p+" done", func() bool { return m.dialog == nil && m.work.op == "" && strings.Contains(screen(m), "Undone") })
	}
	if got := fileText(t, notes); got != "original\n" {
		t.Fatalf("after three undos: %q", got)
	}
	l.enter("/redo")
	l.until("the redo to be shown", func() bool { return m.dialog != nil })
	inOrder(t, screen(m), "? Redo the request undone last: first?", "-original", "+first")
	l.key("y")
	l.until("the redo", func() bool { return strings.Contains(screen(m), "Redone") })
	var undone []string
	for _, it := range m.transcript.items {
		if u, ok := it.(*undoneItem); ok {
			if p, ok := u.inner.(*userItem); ok {
				undone = append(undone, p.text)
			}
		}
	}
	if strings.Join(undone, ",") != "second,third" {
		t.Errorf("after the redo, the prompts marked undone are %q, want second and third", undone)
	}
	l.enter("/redo")
	l.until("the next redo to be shown", func() bool { return m.dialog != nil })
	if s := screen(m); !strings.Contains(s, "? Redo the request undone last: second?") {
		t.Errorf("the next redo:\n%s", s)
	}
}
