package tools

import (
	"errors"
	"io"
	"io/fs"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Previewer is a Call that can show, before it runs, the change it would
// make: what an approval prompt and a tool card show.
type Previewer interface {
	// Preview returns the change as a unified diff of the file as it is
	// now against what the call would leave; empty when the call would
	// change nothing. An error means the call would fail as things stand:
	// Run will say why, so there is nothing to preview.
	Preview() (string, error)
}

var (
	_ Previewer = (*writeFileCall)(nil)
	_ Previewer = (*editFileCall)(nil)
)

// Preview returns the change a prepared call would make, when it is a call
// that can tell (ok); see Previewer.
func Preview(c Call) (diff string, ok bool, err error) {
	if w, isCapped := c.(capped); isCapped {
		c = w.Call
	}
	p, ok := c.(Previewer)
	if !ok {
		return "", false, nil
	}
	diff, err = p.Preview()
	return diff, true, err
}

// Preview implements Previewer.
func (c *writeFileCall) Preview() (string, error) {
	target, err := c.ws.follow(c.rel)
	if err != nil {
		return "", err
	}
	old, err := c.ws.readText(c.rel, target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return udiff.Unified(c.rel, c.rel, old, c.content), nil
}

// Preview implements Previewer. It works the edit out as Run does, so it
// fails, with Run's message, where Run would: a file changed since the
// model read it (ErrStale), an old_string that does not match.
func (c *editFileCall) Preview() (string, error) {
	p, ee := c.plan()
	if ee != nil {
		return "", ee
	}
	return udiff.Unified(c.rel, c.rel, p.before, p.edit.out), nil
}

// readFile returns the content and the FileInfo of the regular file
// target (rel as the model named it). Its error is for the model, and
// errors.Is(err, fs.ErrNotExist) when there is no file.
func (w *Workspace) readFile(rel, target string) ([]byte, fs.FileInfo, error) {
	f, fi, err := w.openFile(rel, target)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	return data, fi, err
}

// readText is readFile as text: a binary file, whose bytes a diff cannot
// show, reads as empty.
func (w *Workspace) readText(rel, target string) (string, error) {
	data, _, err := w.readFile(rel, target)
	if err != nil || isBinary(data) {
		return "", err
	}
	return string(data), nil
}
