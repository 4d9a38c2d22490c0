package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWorkspaceFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		".gitignore":       "build/\n*.log\n",
		"main.go":          "package main",
		"a/b/c.txt":        "c",
		"a/debug.log":      "ignored",
		"build/out.bin":    "ignored",
		".git/config":      "never listed",
		"a/.gitignore":     "secret.txt\n",
		"a/secret.txt":     "ignored below a",
		"z/keep.log.txt":   "kept",
		"z/nested/deep.md": "deep",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	want := []string{".gitignore", "a/.gitignore", "a/b/c.txt", "main.go", "z/keep.log.txt", "z/nested/deep.md"}
	got, more, err := ws.Files(t.Context(), 100)
	if err != nil || more || !slices.Equal(got, want) {
		t.Errorf("files %q, more %v, %v; want %q", got, more, err, want)
	}
	got, more, err = ws.Files(t.Context(), 2)
	if err != nil || !more || !slices.Equal(got, want[:2]) {
		t.Errorf("at most 2: %q, more %v, %v", got, more, err)
	}
}
