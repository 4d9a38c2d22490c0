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
// that benchmark runs, and rg, search the same files, and that a seed
// gives another.
func TestGenerateDeterministic(t *testing.T) {
	for _, tt := range []struct {
		p    Params
		want []string // paths every such tree holds
	}{
		{Params{Files: 300}, []string{".gitignore", ".git/info/exclude", "node_modules", "services/svc00/.gitignore"}},
		{Params{Files: 2000, Layout: Monorepo}, []string{".gitignore", ".git/info/exclude", "services/user00/.gitignore",
			"apps/app01/node_modules", "apps/app00/dist", "proto/gen/v5", "data/fixtures/dump.sql", "logs/keep.log"}},
	} {
		t.Run(tt.p.String(), func(t *testing.T) {
			a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
			for _, dir := range []string{a, b} {
				if err := Ensure(dir, tt.p); err != nil {
					t.Fatal(err)
				}
			}
			if ha, hb := digest(t, a, tt.p.Files), digest(t, b, tt.p.Files); ha != hb {
				t.Fatalf("trees differ: %x %x", ha, hb)
			}
			for _, name := range tt.want {
				if _, err := os.Stat(filepath.Join(a, name)); err != nil {
					t.Errorf("%s missing: %v", name, err)
				}
			}
			seeded := tt.p
			seeded.Seed = 7
			c := filepath.Join(t.TempDir(), "c")
			if err := Generate(c, seeded); err != nil {
				t.Fatal(err)
			}
			if digest(t, a, tt.p.Files) == digest(t, c, tt.p.Files) {
				t.Fatal("another seed gave the same tree")
			}
		})
	}
}

// TestMonorepoShape checks that the monorepo is deep and wide, with
// .gitignore files below its projects.
func TestMonorepoShape(t *testing.T) {
	dir := t.TempDir()
	if err := Generate(dir, Params{Files: 4000, Layout: Monorepo}); err != nil {
		t.Fatal(err)
	}
	deepest, widest, nested := 0, 0, 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		parts := strings.Split(rel, string(filepath.Separator))
		switch {
		case d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git"):
			return filepath.SkipDir
		case d.IsDir():
			deepest = max(deepest, len(parts))
			ents, _ := os.ReadDir(p)
			widest = max(widest, len(ents))
		case d.Name() == ".gitignore" && len(parts) > 3:
			nested++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("deepest directory %d levels, widest %d entries, %d .gitignore files below the projects", deepest, widest, nested)
	if deepest < 8 || widest < 4000/120 || nested == 0 {
		t.Fatalf("deepest directory %d levels, widest %d entries, %d .gitignore files below the projects", deepest, widest, nested)
	}
}

func digest(t *testing.T, dir string, files int) [32]byte {
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
	if n < files || binaries == 0 {
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
	if err := Ensure(dir, Params{Files: 10}); err == nil {
		t.Fatal("Ensure generated into a directory it did not make")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("a file of the directory is gone: %v", err)
	}
}
