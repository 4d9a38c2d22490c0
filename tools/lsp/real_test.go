package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"lathe/tools"
)

// realServer finds a real server's program: in the directory the
// variable env names (the CI set-up installs them there), else on PATH.
// The test is skipped, saying how to install it, when it is in neither.
func realServer(t *testing.T, env, program, install string) string {
	t.Helper()
	if dir := os.Getenv(env); dir != "" {
		p := filepath.Join(dir, program)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		t.Fatalf("%s is set but %s has no %s", env, dir, program)
	}
	p, err := exec.LookPath(program)
	if err != nil {
		t.Skipf("%s is not installed (%s; or set %s to its directory)", program, install, env)
	}
	return p
}

// realEnviron is the environment a real server runs with in a test:
// this process's, with PATH leading to the server's directory.
func realEnviron(program string) []string {
	env := os.Environ()
	return append(env, "PATH="+filepath.Dir(program)+string(filepath.ListSeparator)+os.Getenv("PATH"))
}

// workspace makes a workspace of files.
func workspace(t *testing.T, files map[string]string) (string, *os.Root) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, root
}

// change writes content to the file at path of dir, as a file tool
// would, and returns the change to check.
func change(t *testing.T, dir, path, content string) tools.FileChange {
	t.Helper()
	p := filepath.Join(dir, path)
	before, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return tools.FileChange{Path: path, Before: before, Known: true}
}

const goMain = `package main

import "fmt"

func main() {
	fmt.Println(greeting())
}

func greeting() string { return "hi" }
`

// TestGoplsReportsWhatAnEditBroke: with gopls, an edit that brings in a
// type error gets it; one that fixes it gets nothing; an error the file
// had already is not reported again.
func TestGoplsReportsWhatAnEditBroke(t *testing.T) {
	gopls := realServer(t, "LATHE_TEST_GOPLS_DIR", "gopls", "go install golang.org/x/tools/gopls@v0.23.0")
	dir, root := workspace(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": goMain})
	m := New(Options{Dir: dir, Root: root, Servers: Builtins(), Environ: realEnviron(gopls), Wait: 60 * time.Second, Start: confined(t, dir),
		Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel).With().Timestamp().Logger()})
	defer m.Close()
	ctx := t.Context()

	broken := strings.Replace(goMain, "greeting()", "greting()", 1)
	d := m.Check(ctx, []tools.FileChange{change(t, dir, "main.go", broken)}, nil)
	if d.Total != 1 || len(d.Lines) != 1 || !strings.HasPrefix(d.Lines[0], "main.go:6:14: undefined: greting") {
		t.Fatalf("the edit that broke the build got %+v", d)
	}
	more := strings.Replace(broken, `return "hi"`, `return 1`, 1)
	d = m.Check(ctx, []tools.FileChange{change(t, dir, "main.go", more)}, nil)
	if d.Total != 1 || !strings.Contains(d.Lines[0], "main.go:9:33:") || strings.Contains(strings.Join(d.Lines, "\n"), "greting") {
		t.Fatalf("the second error got %+v; the first must not be repeated", d)
	}
	d = m.Check(ctx, []tools.FileChange{change(t, dir, "main.go", goMain)}, nil)
	if d.Total != 0 {
		t.Fatalf("the edit that fixed both got %+v", d)
	}
}

const pyMain = `def greeting() -> str:
    return "hi"


def main() -> None:
    print(greeting())
`

// TestPyrightReportsWhatAnEditBroke: the same with pyright, and an error
// the file had before the edit is not reported.
func TestPyrightReportsWhatAnEditBroke(t *testing.T) {
	pyright := realServer(t, "LATHE_TEST_PYRIGHT_DIR", "pyright-langserver", "npm install pyright")
	old := pyMain + "\n\nx: int = \"already wrong\"\n"
	dir, root := workspace(t, map[string]string{"main.py": old})
	m := New(Options{Dir: dir, Root: root, Servers: Builtins(), Environ: realEnviron(pyright), Wait: 60 * time.Second, Start: confined(t, dir),
		Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel).With().Timestamp().Logger()})
	defer m.Close()
	ctx := t.Context()

	broken := strings.Replace(old, `return "hi"`, `return 1`, 1)
	d := m.Check(ctx, []tools.FileChange{change(t, dir, "main.py", broken)}, nil)
	if d.Total != 1 || !strings.HasPrefix(d.Lines[0], "main.py:2:12: ") || !strings.Contains(d.Lines[0], `"Literal[1]"`) {
		t.Fatalf("the edit that broke the types got %+v", d)
	}
	d = m.Check(ctx, []tools.FileChange{change(t, dir, "main.py", old)}, nil)
	if d.Total != 0 {
		t.Fatalf("the edit that fixed it got %+v (the error that was there before is not new)", d)
	}
}
