package tools

import (
	"context"
	"errors"
	"io/fs"

	"lathe/prompts"
)

// Checker is told of the files the tools read and change, and says what a
// change broke: the new errors language servers find in the files (see
// package lsp).
type Checker interface {
	// Read is told that a tool read the file at path (relative to the
	// workspace, with slashes): the checker may start looking at it.
	// It returns at once.
	Read(path string)
	// Check is told of the files a call just changed and returns the
	// problems the change brought into them, waiting a bounded time;
	// report names the wait for whoever watches.
	Check(ctx context.Context, changes []FileChange, report func(string)) Diagnostics
}

// FileChange is a file a call changed.
type FileChange struct {
	// Path is relative to the workspace, with slashes.
	Path string
	// Before is what the file held before the change (nil: it did not
	// exist), when Known.
	Before []byte
	// Known says Before is known: a file tool changed the file. What a
	// command changed is not.
	Known bool
}

// Diagnostics are the problems a change brought into the files it
// changed, as language servers report them.
type Diagnostics struct {
	// Lines are the problems, "main.go:14:2: undefined: fooo", at most
	// MaxDiagnostics of them.
	Lines []string `json:"lines"`
	// Total is how many there are: more than len(Lines) when some were
	// cut.
	Total int `json:"total"`
	// Servers are the servers that found them.
	Servers []string `json:"servers"`
}

// MaxDiagnostics is the most problems a result lists.
const MaxDiagnostics = 10

// Diagnose has c told of the files the tools read and change from now
// on; nil stops telling. Set it before the tools run.
func (w *Workspace) Diagnose(c Checker) { w.checker = c }

// read tells the checker, if any, that path was read.
func (w *Workspace) read(path string) {
	if w.checker != nil {
		w.checker.Read(path)
	}
}

// check has the checker, if any, look at what a call changed, and adds
// what it found to the call's result.
func (w *Workspace) check(ctx context.Context, caller Caller, res *Result, changes ...FileChange) {
	if w.checker == nil || len(changes) == 0 || ctx.Err() != nil {
		return
	}
	d := w.checker.Check(ctx, changes, caller.Report)
	if d.Total == 0 {
		return
	}
	res.Diagnostics = &d
	res.Content += prompts.Diagnostics(d.Servers, d.Lines, d.Total-len(d.Lines))
}

// commandChanges are the files a command changed, what they held before
// not known.
func commandChanges(paths []string) []FileChange {
	out := make([]FileChange, len(paths))
	for i, p := range paths {
		out[i] = FileChange{Path: p}
	}
	return out
}

// maxChecked is the largest file whose content before a change is kept
// for the checker.
const maxChecked = 2 << 20

// before is what the file at target (root-relative) holds now, for a
// checker to compare a change with: nil when it does not exist, and
// nothing known when it cannot be read or there is no checker.
func (w *Workspace) before(target string) FileChange {
	ch := FileChange{Path: target}
	if w.checker == nil {
		return ch
	}
	fi, err := w.root.Lstat(target)
	if err == nil && (!fi.Mode().IsRegular() || fi.Size() > maxChecked) {
		return ch
	}
	data, err := w.root.ReadFile(target)
	switch {
	case err == nil:
		ch.Before, ch.Known = data, true
	case errors.Is(err, fs.ErrNotExist):
		ch.Known = true
	}
	return ch
}
