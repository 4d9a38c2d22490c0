package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStaleEditGuard checks that edit_file refuses a file whose content
// changed since the model last saw it, and only then.
func TestStaleEditGuard(t *testing.T) {
	const src = "package main\n\nfunc main() {\n\tprintln(1)\n}\n"
	opts := Options{Env: []string{"PATH=" + os.Getenv("PATH")}}
	steps := map[string]func(t *testing.T, ws *Workspace){
		"read": func(t *testing.T, ws *Workspace) { mustRun(t, ws, opts, "read_file", `{"path":"main.go"}`) },
		"read page": func(t *testing.T, ws *Workspace) {
			mustRun(t, ws, opts, "read_file", `{"path":"main.go","offset":2,"limit":1}`)
		},
		"read link": func(t *testing.T, ws *Workspace) { mustRun(t, ws, opts, "read_file", `{"path":"link.go"}`) },
		"edit": func(t *testing.T, ws *Workspace) {
			mustRun(t, ws, opts, "edit_file", `{"path":"main.go","old_string":"println(1)","new_string":"println(2)"}`)
		},
		"write": func(t *testing.T, ws *Workspace) {
			mustRun(t, ws, opts, "write_file", jsonArgs(t, map[string]any{"path": "main.go", "content": src + "// v2\n"}))
		},
		"shell": func(t *testing.T, ws *Workspace) {
			mustRun(t, ws, opts, "shell", `{"command":"echo '// by a command' >> main.go"}`)
		},
		"outside": func(t *testing.T, ws *Workspace) {
			p := filepath.Join(ws.Dir(), "main.go")
			if err := os.WriteFile(p, []byte(readString(t, p)+"// outside\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"touch": func(t *testing.T, ws *Workspace) {
			now := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(ws.Dir(), "main.go"), now, now); err != nil {
				t.Fatal(err)
			}
		},
	}
	tests := []struct {
		name    string
		steps   []string // before the edit
		refused bool
	}{
		{name: "never read", steps: nil},
		{name: "never read, changed outside", steps: []string{"outside"}},
		{name: "read", steps: []string{"read"}},
		{name: "read, changed outside", steps: []string{"read", "outside"}, refused: true},
		{name: "read, changed by a shell command", steps: []string{"read", "shell"}, refused: true},
		{name: "read, lathe's own edit", steps: []string{"read", "edit"}},
		{name: "read, own edit, changed outside", steps: []string{"read", "edit", "outside"}, refused: true},
		{name: "written by lathe, changed outside", steps: []string{"write", "outside"}, refused: true},
		{name: "written by lathe", steps: []string{"outside", "write"}},
		{name: "read again after a change", steps: []string{"read", "outside", "read"}},
		{name: "a page read records the whole file", steps: []string{"read page", "outside"}, refused: true},
		{name: "read through a symlink", steps: []string{"read link", "outside"}, refused: true},
		{name: "only the mtime changed", steps: []string{"read", "touch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"main.go": src, "link.go": "->main.go"})
			for _, s := range tt.steps {
				steps[s](t, ws)
			}
			p := filepath.Join(ws.Dir(), "main.go")
			unchanged := stampFile(t, p)
			res := run(t, ws, opts, "edit_file", `{"path":"main.go","old_string":"func main() {","new_string":"func main() { // edited"}`)
			if !tt.refused {
				if res.IsError || !strings.Contains(readString(t, p), "// edited") {
					t.Fatalf("edit refused or not made: %+v", res)
				}
				return
			}
			want := "error: main.go changed on disk since you last read it (edited outside lathe or by a command); read_file it again before editing"
			if !res.IsError || res.Content != want || res.Summary != "stale" {
				t.Fatalf("got %+v\nwant %q", res, want)
			}
			unchanged()
		})
	}
}

// TestPreviewReportsStale checks that the approval preview of an edit to a
// changed file fails as the edit would, so no prompt shows a doomed diff.
func TestPreviewReportsStale(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "one\n"})
	mustRun(t, ws, Options{}, "read_file", `{"path":"a.txt"}`)
	tool, _ := Default(ws, Options{}).Lookup("edit_file")
	call, err := tool.Prepare(json.RawMessage(`{"path":"a.txt","old_string":"one","new_string":"two"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff, _, err := Preview(call); err != nil || !strings.Contains(diff, "+two") {
		t.Fatalf("fresh file: %q, %v", diff, err)
	}
	if err := os.WriteFile(filepath.Join(ws.Dir(), "a.txt"), []byte("one\nmore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diff, ok, err := Preview(call)
	if !ok || !errors.Is(err, ErrStale) || diff != "" || !strings.Contains(err.Error(), "a.txt changed on disk") {
		t.Fatalf("changed file: %q, %v, %v; want an ErrStale", diff, ok, err)
	}
}

// TestSeenConcurrent runs reads and edits of several files at once, for the
// race detector, and checks that every edit saw its own writes. Each file's
// edits race with reads of the other files only: a read of the same file
// that ends after an edit rightly records the older content it showed.
func TestSeenConcurrent(t *testing.T) {
	files := map[string]string{}
	for i := range 4 {
		files[fmt.Sprintf("f%d.txt", i)] = "n=0\n"
		files[fmt.Sprintf("g%d.txt", i)] = "other\n"
	}
	ws := newWorkspace(t, files)
	reg := Default(ws, Options{})
	var wg sync.WaitGroup
	for i := range 4 {
		name := fmt.Sprintf("f%d.txt", i)
		wg.Go(func() {
			for n := range 5 {
				callTool(t, reg, "read_file", `{"path":"`+name+`"}`)
				callTool(t, reg, "edit_file", fmt.Sprintf(`{"path":%q,"old_string":"n=%d","new_string":"n=%d"}`, name, n, n+1))
			}
		})
		other := fmt.Sprintf("g%d.txt", i)
		wg.Go(func() {
			for range 5 {
				callTool(t, reg, "read_file", `{"path":"`+other+`"}`)
			}
		})
	}
	wg.Wait()
	for i := range 4 {
		if got := readString(t, filepath.Join(ws.Dir(), fmt.Sprintf("f%d.txt", i))); got != "n=5\n" {
			t.Errorf("f%d.txt holds %q", i, got)
		}
	}
}

// mustRun is run for a step that must succeed.
func mustRun(t *testing.T, ws *Workspace, opts Options, name, args string) {
	t.Helper()
	if res := run(t, ws, opts, name, args); res.IsError {
		t.Fatalf("%s %s: %s", name, args, res.Content)
	}
}

// callTool runs a call from any goroutine; failures are reported with
// t.Error.
func callTool(t *testing.T, reg *Registry, name, args string) {
	tool, _ := reg.Lookup(name)
	call, err := tool.Prepare(json.RawMessage(args))
	if err != nil {
		t.Error(err)
		return
	}
	if res, err := call.Run(t.Context(), Caller{}); err != nil || res.IsError {
		t.Errorf("%s %s: %+v %v", name, args, res, err)
	}
}
