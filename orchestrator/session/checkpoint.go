package session

import (
	"errors"
	"io/fs"
	"time"
)

// ErrNothingToRedo is what a redo finds when the last undo was followed by
// more of the conversation, or there was no undo.
var ErrNothingToRedo = errors.New("nothing to redo")

// Checkpoint is what one prompt's run changed in the files of the
// session's directory, kept so that the run can be undone.
type Checkpoint struct {
	ID        int64
	SessionID string
	// Seq is the position of the run's prompt in the history: undoing the
	// run takes the history back to before it.
	Seq     int
	Created time.Time
	Undone  time.Time // zero unless undone (and not redone since)
	Files   []FileChange
}

// FileChange is one file a run changed: what it was before the run first
// changed it, and what the run left.
type FileChange struct {
	Path   string // relative to the session's directory, with slashes
	Before FileState
	After  FileState
	By     string // "tool" (a file tool) or "command" (a shell command)
	// Problem says why undo cannot restore the file ("too large to
	// checkpoint", "changed by shell outside a git work tree"); empty
	// when it can.
	Problem string
}

// FileState is a file's content as a checkpoint keeps it.
type FileState struct {
	Hash string // SHA-256 of the content, hex; empty when the file did not exist
	Mode fs.FileMode
	Size int64
}

// Exists reports whether the state is of a file that exists.
func (s FileState) Exists() bool { return s.Hash != "" }
