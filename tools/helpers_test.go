package tools

import (
	"encoding/json"
	"lathe/tools/sandbox"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tree writes files (path → content) under dir. A content starting with
// "->" makes a symlink to the rest; a path ending in "/" makes a directory.
func tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(content, "->"); ok {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// newWorkspace makes a workspace in a new temporary directory holding files.
func newWorkspace(t testing.TB, files map[string]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	tree(t, dir, files)
	return openWorkspace(t, dir)
}

func openWorkspace(t testing.TB, dir string) *Workspace {
	t.Helper()
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// run prepares and runs the named tool of a default registry over ws. A
// Prepare error is returned as an error result whose Summary is "prepare".
func run(t *testing.T, ws *Workspace, opts Options, name, args string) Result {
	t.Helper()
	tool, ok := Default(ws, opts).Lookup(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	call, err := tool.Prepare(json.RawMessage(args))
	if err != nil {
		return Result{Content: err.Error(), IsError: true, Summary: "prepare"}
	}
	res, err := call.Run(t.Context(), Caller{})
	if err != nil {
		t.Fatalf("%s %s: Run: %v", name, args, err)
	}
	return res
}

// jsonArgs marshals an argument object.
func jsonArgs(t testing.TB, args map[string]any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readString(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stampFile sets the mtime of the file at p to a fixed time in the past and
// returns a check, for a call that must leave the file alone, that it
// still holds what it holds now and still has that mtime.
func stampFile(t testing.TB, p string) (unchanged func()) {
	t.Helper()
	stamp := time.Unix(1_000_000_000, 0)
	if err := os.Chtimes(p, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	want := readString(t, p)
	return func() {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := readString(t, p); got != want || !fi.ModTime().Equal(stamp) {
			t.Fatalf("%s was changed: holds %q with mtime %v; want %q with mtime %v", p, got, fi.ModTime(), want, stamp)
		}
	}
}

// TestMain runs the sandbox helper when the test binary is started as one:
// shell commands run through it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// confined is a Confinement with the test binary as the helper and the
// policy mode given, for ws.
func confined(t testing.TB, ws *Workspace, mode sandbox.Mode) *Confinement {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Confinement{Exe: exe, Policy: sandbox.Policy{Mode: mode, Workspace: ws.Dir()}}
}

// shellWays are the two ways a shell command runs: through the helper (as
// lathe runs them) and in a process group (where there is no helper).
func shellWays(t *testing.T, ws *Workspace, opts Options, fn func(t *testing.T, opts Options)) {
	t.Helper()
	t.Run("helper", func(t *testing.T) {
		o := opts
		o.Confinement = confined(t, ws, sandbox.Off)
		fn(t, o)
	})
	t.Run("group", func(t *testing.T) { fn(t, opts) })
}
