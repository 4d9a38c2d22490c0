package gentree

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateDeterministic checks that a tree is the same each time, so
// that benchmark runs, and rg, search the same files.
func TestGenerateDeterministic(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, dir := range []string{a, b} {
		if err := Ensure(dir, 300); err != nil {
			t.Fatal(err)
		}
	}
	if ha, hb := digest(t, a), digest(t, b); ha != hb {
		t.Fatalf("trees differ: %x %x", ha, hb)
	}
	for _, name := range []string{".gitignore", ".git/info/exclude", "node_modules", "services/svc00/.gitignore"} {
		if _, err := os.Stat(filepath.Join(a, name)); err != nil {
			t.Errorf("%s missing: %v", name, err)
		}
	}
}

func digest(t *testing.T, dir string) [32]byte {
	h := sha256.New()
	n, binaries := 0, 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		h.Write([]byte(strings.TrimPrefix(p, dir)))
		h.Write(b)
		n++
		if strings.HasSuffix(p, ".png") {
			binaries++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 300 || binaries == 0 {
		t.Fatalf("%d files, %d binary", n, binaries)
	}
	return [32]byte(h.Sum(nil))
}

func TestEnsureKeepsOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Ensure(dir, 10); err == nil {
		t.Fatal("Ensure generated into a directory it did not make")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("a file of the directory is gone: %v", err)
	}
}
