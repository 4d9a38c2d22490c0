// Package checkpoint keeps what the files of a session's directory were
// before each prompt's run changed them, and takes runs back: undo, redo
// and rewind. A Tracker is told of every change the tools are about to
// make (tools.Changes): the first time a run changes a file, its content
// before is kept (content-addressed, in the session database), and so is
// what the run left, so that undo can tell whether someone changed the
// file since. Files a shell command changes are found by comparing the
// directory before and after it; in a git work tree their previous
// content comes from blobs written, before the command, to the
// repository's object store (never its index, stash or refs); elsewhere,
// and for files git ignores, they are listed as changes undo cannot
// restore.
package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"lathe/orchestrator/session"
	"lathe/prompts/human"
)

// Store keeps checkpoints and the contents they hold. Package
// session/sqlite implements it.
type Store interface {
	PutBlob(ctx context.Context, data []byte) (hash string, err error)
	Blob(ctx context.Context, hash string) ([]byte, error)
	CreateCheckpoint(ctx context.Context, sessionID string, seq int, at time.Time) (int64, error)
	SaveFileChange(ctx context.Context, checkpointID int64, f session.FileChange) error
	Checkpoints(ctx context.Context, sessionID string) ([]session.Checkpoint, error)
	UndoRun(ctx context.Context, cp session.Checkpoint, at time.Time) error
	RedoRun(ctx context.Context, cp session.Checkpoint) error
}

// DefaultMaxFile is the largest file a checkpoint keeps; a larger one is
// recorded as too large, and undo cannot restore it.
const DefaultMaxFile = 10 << 20

// KeepNoFile as Options.MaxFile keeps no file at all.
const KeepNoFile = -1

// Options configure a Tracker.
type Options struct {
	// MaxFile is the largest file kept; 0 means DefaultMaxFile, and a
	// negative size keeps no file (KeepNoFile): nothing can be undone.
	MaxFile int64
	// Shell bounds what is watched around a command (see ShellLimits).
	Shell ShellLimits
	Log   zerolog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Tracker keeps the checkpoints of one session's runs in one directory.
// Between Begin and End, it is told of changes (Changing, Running) from
// any goroutine.
type Tracker struct {
	store Store
	dir   string
	root  *os.Root
	opts  Options
	shell *shellWatch

	mu      sync.Mutex
	session string
	cp      int64           // the run's checkpoint; 0 outside a run
	kept    map[string]bool // paths the run's checkpoint holds already
}

// New returns a tracker of the directory dir keeping checkpoints in store.
func New(store Store, dir string, opts Options) (*Tracker, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if opts.MaxFile == 0 {
		opts.MaxFile = DefaultMaxFile
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	t := &Tracker{store: store, dir: dir, root: root, opts: opts}
	t.shell = newShellWatch(t, opts.Shell)
	return t, nil
}

// Checkpoints returns the session's checkpoints, oldest first.
func (t *Tracker) Checkpoints(ctx context.Context, sessionID string) ([]session.Checkpoint, error) {
	return t.store.Checkpoints(ctx, sessionID)
}

// Close releases the directory.
func (t *Tracker) Close() error { return t.root.Close() }

// Begin starts the checkpoint of a run of sessionID whose prompt is at
// seq of its history.
func (t *Tracker) Begin(ctx context.Context, sessionID string, seq int) error {
	id, err := t.store.CreateCheckpoint(ctx, sessionID, seq, t.opts.Now())
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.session, t.cp, t.kept = sessionID, id, map[string]bool{}
	return nil
}

// End ends the run's checkpoint: changes are no longer recorded.
func (t *Tracker) End() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cp, t.kept = 0, nil
}

// running is the run's checkpoint, 0 outside a run.
func (t *Tracker) running() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cp
}

// Note says, before a write to path is approved, what undo could not
// restore of it; empty when it could.
func (t *Tracker) Note(path string) string {
	if t.opts.MaxFile < 0 {
		return t.tooLarge(0)
	}
	fi, err := t.root.Stat(filepath.FromSlash(path))
	if err == nil && fi.Mode().IsRegular() && fi.Size() > t.opts.MaxFile {
		return t.tooLarge(fi.Size())
	}
	return ""
}

// tooLarge says why a file of size bytes, larger than MaxFile, is not
// kept.
func (t *Tracker) tooLarge(size int64) string {
	if t.opts.MaxFile < 0 {
		return "not checkpointed (undo keeps no file: max_file is 0): undo cannot restore it"
	}
	return fmt.Sprintf("too large to checkpoint (%s, over %s): undo cannot restore it", human.Size(size), human.Size(t.opts.MaxFile))
}

// Changing implements tools.Changes: the first change of path in the run
// keeps what it was; every change records what it becomes. Nothing is
// kept outside a run. The records are written even when ctx is cancelled:
// the change they describe is made all the same.
func (t *Tracker) Changing(ctx context.Context, path string, data []byte, mode fs.FileMode) string {
	cp := t.running()
	if cp == 0 {
		return ""
	}
	ctx = context.WithoutCancel(ctx)
	f := session.FileChange{Path: path, By: "tool"}
	first := t.first(path)
	if first {
		before, problem, err := t.state(ctx, path)
		if err != nil {
			return t.failed(path, err)
		}
		f.Before, f.Problem = before, problem
	}
	if int64(len(data)) > t.opts.MaxFile {
		f.Problem = t.tooLarge(int64(len(data)))
	} else {
		hash, err := t.store.PutBlob(ctx, data)
		if err != nil {
			return t.failed(path, err)
		}
		f.After = session.FileState{Hash: hash, Mode: mode.Perm(), Size: int64(len(data))}
	}
	if err := t.store.SaveFileChange(ctx, cp, f); err != nil {
		return t.failed(path, err)
	}
	if first {
		t.keep(path)
	}
	if f.Problem != "" {
		return f.Problem
	}
	return ""
}

// first reports whether the run has not kept path yet.
func (t *Tracker) first(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.kept[path]
}

func (t *Tracker) keep(path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.kept != nil {
		t.kept[path] = true
	}
}

// state keeps the file at path as it is now and returns its state; a
// file too large to keep gets a problem instead of a hash.
func (t *Tracker) state(ctx context.Context, path string) (session.FileState, string, error) {
	fi, err := t.root.Lstat(filepath.FromSlash(path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return session.FileState{}, "", nil
	case err != nil:
		return session.FileState{}, "", err
	case !fi.Mode().IsRegular():
		return session.FileState{}, fmt.Sprintf("not a regular file (%s): undo cannot restore it", fi.Mode().Type()), nil
	case fi.Size() > t.opts.MaxFile:
		return session.FileState{Size: fi.Size(), Mode: fi.Mode().Perm()}, t.tooLarge(fi.Size()), nil
	}
	data, err := t.root.ReadFile(filepath.FromSlash(path))
	if err != nil {
		return session.FileState{}, "", err
	}
	hash, err := t.store.PutBlob(ctx, data)
	if err != nil {
		return session.FileState{}, "", err
	}
	return session.FileState{Hash: hash, Mode: fi.Mode().Perm(), Size: int64(len(data))}, "", nil
}

// failed logs a failure to keep path and returns the note for the result.
func (t *Tracker) failed(path string, err error) string {
	t.opts.Log.Error().Err(err).Str("path", path).Msg("checkpoint failed")
	return "undo will not be able to restore " + path + ": " + err.Error()
}

// hashOf is the name a content is kept under (as the store names it).
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
