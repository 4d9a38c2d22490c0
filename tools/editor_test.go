package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeEditor holds buffers by absolute path; a file it has no buffer of
// it reads from the disk, as an editor does. reads or writes false leaves
// that to the tools (errors.ErrUnsupported).
type fakeEditor struct {
	mu            sync.Mutex
	buffers       map[string]string
	reads, writes bool
	read, written []string
}

func (e *fakeEditor) ReadText(_ context.Context, path string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.reads {
		return "", errors.ErrUnsupported
	}
	e.read = append(e.read, path)
	if text, ok := e.buffers[path]; ok {
		return text, nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func (e *fakeEditor) WriteText(_ context.Context, path, text string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.writes {
		return errors.ErrUnsupported
	}
	e.written = append(e.written, path)
	e.buffers[path] = text
	return os.WriteFile(path, []byte(text), 0o644) // the editor saves
}

// changesSeen records what Changes is told, for undo.
type changesSeen struct{ paths []string }

func (c *changesSeen) Changing(_ context.Context, path string, _ []byte, _ fs.FileMode) string {
	c.paths = append(c.paths, path)
	return ""
}
func (c *changesSeen) Running(context.Context) func() (string, []string) {
	return func() (string, []string) { return "", nil }
}

// TestEditorReadsAndWrites: with an editor, the file tools read the text
// it holds, unsaved changes included, and write through it, undo still
// told of each write; without its capability, they read and write the
// files themselves.
func TestEditorReadsAndWrites(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.go": "on disk\n", "img.bin": "\x00\x01\x02"})
	abs := filepath.Join(ws.Dir(), "a.go")
	ed := &fakeEditor{buffers: map[string]string{abs: "unsaved line\n"}, reads: true, writes: true}
	ws.UseEditor(ed)
	seen := &changesSeen{}
	ws.Track(seen)

	if res := run(t, ws, Options{}, "read_file", `{"path":"a.go"}`); !strings.Contains(res.Content, "unsaved line") {
		t.Fatalf("read_file gave %q; want the editor's buffer", res.Content)
	}
	res := run(t, ws, Options{}, "edit_file", `{"path":"a.go","old_string":"unsaved","new_string":"edited"}`)
	if res.IsError {
		t.Fatalf("edit_file of the buffer read: %s", res.Content)
	}
	if got := ed.buffers[abs]; got != "edited line\n" {
		t.Errorf("the editor's buffer is %q; want the edit made to it", got)
	}
	res = run(t, ws, Options{}, "write_file", `{"path":"new/b.txt","content":"fresh\n"}`)
	if res.IsError {
		t.Fatalf("write_file: %s", res.Content)
	}
	if b, err := os.ReadFile(filepath.Join(ws.Dir(), "new", "b.txt")); err != nil || string(b) != "fresh\n" {
		t.Errorf("new/b.txt: %q, %v", b, err)
	}
	if want := []string{abs, filepath.Join(ws.Dir(), "new", "b.txt")}; strings.Join(ed.written, ",") != strings.Join(want, ",") {
		t.Errorf("the editor wrote %v; want %v", ed.written, want)
	}
	if strings.Join(seen.paths, ",") != "a.go,new/b.txt" {
		t.Errorf("undo was told of %v; want both writes", seen.paths)
	}
	if res := run(t, ws, Options{}, "read_file", `{"path":"img.bin"}`); !strings.Contains(res.Content, "binary") {
		t.Errorf("a binary file read as %q", res.Content)
	}
	for _, p := range ed.read {
		if strings.HasSuffix(p, "img.bin") {
			t.Errorf("the editor was asked for a binary file")
		}
	}

	// Without the capabilities the tools do it themselves.
	ed.reads, ed.writes = false, false
	if res := run(t, ws, Options{}, "read_file", `{"path":"a.go"}`); !strings.Contains(res.Content, "edited line") {
		t.Errorf("read_file without the editor's reads gave %q", res.Content)
	}
	run(t, ws, Options{}, "write_file", `{"path":"c.txt","content":"own\n"}`)
	if len(ed.written) != 2 {
		t.Errorf("the editor wrote %v; want c.txt written by the tools", ed.written)
	}
}

// TestEditorFailure: an editor that cannot read or write fails the call,
// saying so; the file is not written behind its back.
func TestEditorFailure(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.go": "x\n"})
	ws.UseEditor(failingEditor{})
	if res := run(t, ws, Options{}, "read_file", `{"path":"a.go"}`); !res.IsError || !strings.Contains(res.Content, "the editor could not read it") {
		t.Errorf("read_file: %q", res.Content)
	}
	res := run(t, ws, Options{}, "write_file", `{"path":"a.go","content":"y\n"}`)
	if !res.IsError || !strings.Contains(res.Content, "the editor could not write it") {
		t.Errorf("write_file: %q", res.Content)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Dir(), "a.go")); string(b) != "x\n" {
		t.Errorf("a.go is %q: written behind the editor's back", b)
	}
}

type failingEditor struct{}

func (failingEditor) ReadText(context.Context, string) (string, error) {
	return "", errors.New("no buffer")
}
func (failingEditor) WriteText(context.Context, string, string) error { return errors.New("read-only") }
