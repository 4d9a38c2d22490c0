package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
)

// Editor is the editor lathe works inside, when a front end speaks to one
// (the Agent Client Protocol's fs methods): the file tools read a text
// file as the editor has it, unsaved changes included, and write through
// it, so that its buffers and its own undo stay right. Paths are
// absolute. A method that returns errors.ErrUnsupported leaves the file
// to the tools: the editor cannot do that (its client reads, or writes,
// no files).
//
// What the editor does not decide: which files the tools may touch (the
// workspace's confinement and protected paths apply first), and what undo
// keeps (Changes is told of every write, as for the tools' own).
type Editor interface {
	// ReadText returns the text of the file at path as the editor holds
	// it.
	ReadText(ctx context.Context, path string) (string, error)
	// WriteText replaces the text of the file at path, creating the file.
	WriteText(ctx context.Context, path, text string) error
}

// UseEditor has the file tools read and write through e from now on; nil
// goes back to the files. Set it before the tools run.
func (w *Workspace) UseEditor(e Editor) { w.editor = e }

// editorText is the text of target (a root-relative path, rel as the
// model named it) as the editor holds it; ok is false when there is no
// editor to ask, or it leaves reading to the tools. Its error is for the
// model.
func (w *Workspace) editorText(ctx context.Context, rel, target string) (text string, ok bool, err error) {
	if w.editor == nil {
		return "", false, nil
	}
	text, err = w.editor.ReadText(ctx, w.abs(target))
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return "", false, nil
	case err != nil:
		return "", true, fmt.Errorf("%s: the editor could not read it: %v", rel, err)
	}
	return text, true, nil
}

// editorWrite writes data to target (root-relative, not a symlink) through
// the editor, making its missing parents first; ok is false when there is
// no editor, or it leaves writing to the tools.
func (w *Workspace) editorWrite(ctx context.Context, target string, data []byte) (ok bool, err error) {
	if w.editor == nil {
		return false, nil
	}
	if dir := path.Dir(target); dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return true, w.fsError(dir, err)
		}
	}
	err = w.editor.WriteText(ctx, w.abs(target), string(data))
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return false, nil
	case err != nil:
		return true, fmt.Errorf("%s: the editor could not write it: %v", target, err)
	}
	return true, nil
}

// abs is the absolute path of target, a root-relative path.
func (w *Workspace) abs(target string) string {
	return filepath.Join(w.dir, filepath.FromSlash(target))
}
