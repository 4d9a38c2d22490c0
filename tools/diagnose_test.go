package tools

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeChecker records what it is told and finds one problem in each
// changed file that holds "BAD".
type fakeChecker struct {
	mu      sync.Mutex
	read    []string
	changes []FileChange
	ws      *Workspace
}

func (f *fakeChecker) Read(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.read = append(f.read, path)
}

func (f *fakeChecker) Check(_ context.Context, changes []FileChange, report func(string)) Diagnostics {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = append(f.changes, changes...)
	report("waiting for fake")
	var d Diagnostics
	for _, ch := range changes {
		if b, err := f.ws.Root().ReadFile(ch.Path); err == nil && strings.Contains(string(b), "BAD") {
			d.Lines = append(d.Lines, ch.Path+":1:1: bad")
			d.Total++
			d.Servers = []string{"fake"}
		}
	}
	return d
}

// fakeChanges is a Changes that says a command changed the files listed.
type fakeChanges struct{ changed []string }

func (fakeChanges) Changing(context.Context, string, []byte, fs.FileMode) string { return "" }
func (c fakeChanges) Running(context.Context) func() (string, []string) {
	return func() (string, []string) { return "", c.changed }
}

// TestToolsTellTheChecker: read_file tells what it read; write_file and
// edit_file what they changed and what it held before; shell the files
// the command changed, their content before unknown. What the checker
// finds ends the result, for the model, and is in Diagnostics; the wait
// is reported.
func TestToolsTellTheChecker(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.go": "package a\n", "b.go": "old\n"})
	chk := &fakeChecker{ws: ws}
	ws.Diagnose(chk)
	ws.Track(fakeChanges{changed: []string{"b.go"}})
	var reported []string
	runCall := func(name string, args map[string]any) Result {
		t.Helper()
		tool, _ := Default(ws, Options{}).Lookup(name)
		call, err := tool.Prepare([]byte(jsonArgs(t, args)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := call.Run(t.Context(), Caller{Progress: func(s string) { reported = append(reported, s) }})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	runCall("read_file", map[string]any{"path": "a.go"})
	if !slices.Equal(chk.read, []string{"a.go"}) {
		t.Errorf("read told %q", chk.read)
	}
	res := runCall("edit_file", map[string]any{"path": "a.go", "old_string": "package a", "new_string": "package a BAD"})
	if res.Diagnostics == nil || res.Diagnostics.Total != 1 || !strings.HasSuffix(res.Content, "(fake):\na.go:1:1: bad") {
		t.Errorf("edit result %q, diagnostics %+v", res.Content, res.Diagnostics)
	}
	res = runCall("write_file", map[string]any{"path": "new.go", "content": "fine\n"})
	if res.Diagnostics != nil || strings.Contains(res.Content, "New problems") {
		t.Errorf("a clean write got %q", res.Content)
	}
	runCall("shell", map[string]any{"command": "true"})
	want := []FileChange{
		{Path: "a.go", Before: []byte("package a\n"), Known: true},
		{Path: "new.go", Known: true},
		{Path: "b.go"},
	}
	if len(chk.changes) != len(want) {
		t.Fatalf("told %+v, want %+v", chk.changes, want)
	}
	for i, ch := range chk.changes {
		if ch.Path != want[i].Path || string(ch.Before) != string(want[i].Before) || (ch.Before == nil) != (want[i].Before == nil) || ch.Known != want[i].Known {
			t.Errorf("change %d: %+v, want %+v", i, ch, want[i])
		}
	}
	if len(reported) != 3 || reported[0] != "waiting for fake" {
		t.Errorf("reported %q", reported)
	}
}
