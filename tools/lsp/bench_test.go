package lsp

import (
	"os"
	"strings"
	"testing"
	"time"

	"lathe/tools"
)

// BenchmarkGoplsWarmEdit is what an edit of a Go file costs once gopls
// runs: the change sent, and its diagnostics waited for (an edit that
// brings an error in, then one that takes it out).
func BenchmarkGoplsWarmEdit(b *testing.B) {
	gopls := os.Getenv("LATHE_TEST_GOPLS_DIR")
	if gopls == "" {
		b.Skip("set LATHE_TEST_GOPLS_DIR to gopls's directory")
	}
	dir, root := benchWorkspace(b)
	m := New(Options{Dir: dir, Root: root, Servers: Builtins(), Environ: realEnviron(gopls + "/gopls"), Wait: time.Minute})
	defer m.Close()
	broken := strings.Replace(goMain, "greeting()", "greting()", 1)
	if d := m.Check(b.Context(), []tools.FileChange{writeBench(b, dir, broken)}, nil); d.Total != 1 {
		b.Fatalf("warming up: %+v", d)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		content, want := goMain, 0
		if i%2 == 1 {
			content, want = broken, 1
		}
		if d := m.Check(b.Context(), []tools.FileChange{writeBench(b, dir, content)}, nil); d.Total != want {
			b.Fatalf("edit %d: %+v", i, d)
		}
	}
}

// BenchmarkStart is what the language servers cost a session that
// touches no file of theirs: the manager made, its servers looked for on
// PATH, the workspace looked at once for the tool's offer.
func BenchmarkStart(b *testing.B) {
	dir, root := benchWorkspace(b)
	for b.Loop() {
		m := New(Options{Dir: dir, Root: root, Servers: Builtins(), Environ: os.Environ()})
		m.Relevant()
		m.Close()
	}
}

func benchWorkspace(b *testing.B) (string, *os.Root) {
	dir := b.TempDir()
	for name, content := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": goMain} {
		if err := os.WriteFile(dir+"/"+name, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	return dir, root
}

func writeBench(b *testing.B, dir, content string) tools.FileChange {
	p := dir + "/main.go"
	before, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	return tools.FileChange{Path: "main.go", Before: before, Known: true}
}
