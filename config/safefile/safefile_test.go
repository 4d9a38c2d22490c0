package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok", "hello")
	write("big", strings.Repeat("x", 100))
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero": "/dev/zero", "out": filepath.Join(outside, "secret"), "in": "ok"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, want, err string
	}{
		{"ok", "hello", ""},
		{"in", "hello", ""},
		{"big", strings.Repeat("x", 10), "file too large"},
		{"zero", "", "escapes"},
		{"out", "", "escapes"},
		{"fifo", "", "not a regular file (a FIFO)"},
		{".", "", "not a regular file (a directory)"},
		{"missing", "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(dir, tt.name, 10)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if string(got) != tt.want {
				t.Errorf("read %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := Read(dir, "missing", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := Read(dir, "big", 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a large file: %v, want ErrTooLarge", err)
	}
}

// TestReplace: the file is replaced whole, private, through a link left
// in its place no file is written, and nothing else is left in the
// directory.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trust.json")
	if err := os.WriteFile(path, []byte("old content, longer than the new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(b) != "new\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("%q, mode %v; want the new content alone, 0600", b, fi.Mode())
	}
	outside := filepath.Join(t.TempDir(), "target")
	os.WriteFile(outside, []byte("keep\n"), 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
		t.Errorf("written through the link: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left in the directory: %v", entries)
	}
	if err := Replace(filepath.Join(dir, "missing", "f"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("in a missing directory: %v", err)
	}
	// A replacement that cannot take the name (a directory holds it)
	// fails, and leaves no temporary file behind.
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Replace(filepath.Join(dir, "taken"), []byte("x\n")); err == nil {
		t.Error("replaced a directory")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("left in the directory after a failure: %v", entries)
	}
}
