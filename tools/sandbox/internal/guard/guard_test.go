package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func put(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRestore changes protected paths every way a command could and
// checks each is put back, and nothing else touched.
func TestRestore(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	put(t, root+"/.git/config", "[core]\n\tbare = false\n")
	put(t, root+"/.git/hooks/pre-commit.sample", "#!/bin/sh\n")
	put(t, root+"/.git/HEAD", "ref: refs/heads/main\n")
	put(t, root+"/.git/info/exclude", "x\n")
	put(t, outside+"/sentinel", "untouched")
	paths := []Path{{Root: root, Rel: ".git/config"}, {Root: root, Rel: ".git/hooks"}, {Root: root, Rel: ".git/info"}, {Root: root, Rel: ".git/new"}, {Root: root, Rel: ".git/unchanged"}}
	put(t, root+"/.git/unchanged", "same")
	snap := Take(paths)

	put(t, root+"/.git/config", "[core]\n\thooksPath = evil\n")
	put(t, root+"/.git/hooks/pre-commit", "evil")
	if err := os.Chmod(root+"/.git/hooks/pre-commit.sample", 0o755); err != nil {
		t.Fatal(err)
	}
	// The info directory swapped for a symlink to outside: restoring must
	// not write through it.
	if err := os.RemoveAll(root + "/.git/info"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, root+"/.git/info"); err != nil {
		t.Fatal(err)
	}
	put(t, root+"/.git/new/hook", "evil")
	put(t, root+"/.git/HEAD", "ref: refs/heads/other\n") // not protected

	changes := snap.Restore(nil)
	got := map[string]Change{}
	for _, c := range changes {
		got[c.Path.Rel] = c
	}
	for rel, want := range map[string]Change{
		".git/config": {Restored: true}, ".git/hooks": {Restored: true},
		".git/info": {Restored: true}, ".git/new": {Removed: true},
	} {
		c, ok := got[rel]
		if !ok || c.Restored != want.Restored || c.Removed != want.Removed || c.Err != nil {
			t.Errorf("%s: %+v, want %+v", rel, c, want)
		}
	}
	if len(changes) != 4 {
		t.Errorf("%d changes: %+v", len(changes), changes)
	}
	if s := get(t, root+"/.git/config"); strings.Contains(s, "hooksPath") {
		t.Errorf("config not put back: %q", s)
	}
	if _, err := os.Stat(root + "/.git/hooks/pre-commit"); err == nil {
		t.Error("planted hook still there")
	}
	if fi, err := os.Stat(root + "/.git/hooks/pre-commit.sample"); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("sample hook: %v %v", fi, err)
	}
	if fi, err := os.Lstat(root + "/.git/info"); err != nil || !fi.IsDir() || get(t, root+"/.git/info/exclude") != "x\n" {
		t.Errorf("info not put back: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 || get(t, outside+"/sentinel") != "untouched" {
		t.Errorf("outside touched: %v", entries)
	}
	if get(t, root+"/.git/HEAD") != "ref: refs/heads/other\n" {
		t.Error("an unprotected file was put back")
	}
	if again := snap.Restore(nil); len(again) != 0 {
		t.Errorf("second restore: %+v", again)
	}
}

func TestKeepNew(t *testing.T) {
	root := t.TempDir()
	snap := Take([]Path{{Root: root, Rel: "hooks"}})
	put(t, root+"/hooks/x.sample", "")
	var asked string
	changes := snap.Restore(func(r *os.Root, rel string) bool {
		asked = rel
		return true
	})
	if len(changes) != 0 || asked != "hooks" {
		t.Errorf("changes %+v, asked %q", changes, asked)
	}
	if _, err := os.Stat(root + "/hooks/x.sample"); err != nil {
		t.Error("kept path removed")
	}
}

func TestTooLarge(t *testing.T) {
	root := t.TempDir()
	put(t, root+"/big", strings.Repeat("a", maxFile+10))
	snap := Take([]Path{{Root: root, Rel: "big"}})
	put(t, root+"/big", strings.Repeat("b", maxFile+10))
	changes := snap.Restore(nil)
	if len(changes) != 1 || changes[0].Err == nil || changes[0].Restored {
		t.Fatalf("changes %+v: want one that could not be put back", changes)
	}
	if b, _ := os.ReadFile(root + "/big"); !bytes.HasPrefix(b, []byte("bbb")) {
		t.Error("file removed although it could not be put back")
	}
}

// TestShallow replaces a shallow directory by a file: the file goes, the
// directory's content was never recorded.
func TestShallow(t *testing.T) {
	root := t.TempDir()
	put(t, root+"/.git/objects/x", "data")
	snap := Take([]Path{{Root: root, Rel: ".git", Shallow: true}, {Root: root, Rel: ".git/config"}})
	put(t, root+"/.git/objects/y", "more data") // inside: not watched
	if c := snap.Restore(nil); len(c) != 0 {
		t.Fatalf("changes inside a shallow directory: %+v", c)
	}
	if err := os.Rename(root+"/.git", root+"/moved"); err != nil {
		t.Fatal(err)
	}
	put(t, root+"/.git", "gitdir: elsewhere\n")
	changes := snap.Restore(nil)
	if len(changes) != 1 || !changes[0].Replaced || changes[0].Err != nil {
		t.Fatalf("changes %+v", changes)
	}
	if _, err := os.Lstat(root + "/.git"); err == nil {
		t.Error("the replacement is still there")
	}
	if get(t, root+"/moved/objects/y") != "more data" {
		t.Error("the moved directory was touched")
	}
}
