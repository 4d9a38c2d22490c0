package checkpoint

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"lathe/orchestrator/session"
)

// Outcome is what applying a plan did.
type Outcome struct {
	Done    []Action // the files written or removed
	Refused []Action // the files left alone, and why
}

// Apply carries out a plan: files are written back (or removed) but for
// those refused; with force, files changed since are overwritten too. The
// runs are then marked undone, newest first (or the run done again) in
// the store, and their part of the history taken back (or put back). An
// error writing a file stops there and says which.
func (t *Tracker) Apply(ctx context.Context, p Plan, force bool) (Outcome, error) {
	var out Outcome
	for _, a := range p.Actions {
		do := a.Do
		if do == Refuse && a.Conflict && force {
			do = Restore
			if !a.target.Exists() {
				do = Remove
			}
		}
		switch do {
		case Keep:
			continue
		case Refuse:
			out.Refused = append(out.Refused, a)
			continue
		case Remove:
			err := t.root.Remove(filepath.FromSlash(a.Path))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return out, fmt.Errorf("remove %s: %w", a.Path, err)
			}
		default:
			data, err := t.content(ctx, a.target)
			if err == nil {
				err = t.write(a.Path, data, a.target.Mode)
			}
			if err != nil {
				return out, fmt.Errorf("restore %s: %w", a.Path, err)
			}
		}
		a.Do = do
		out.Done = append(out.Done, a)
	}
	if p.Redo {
		err := t.store.RedoRun(ctx, p.Runs[0])
		if errors.Is(err, session.ErrNothingToRedo) {
			err = nil // the files are back; the conversation went on since
		}
		return out, err
	}
	for _, cp := range p.Runs {
		if err := t.store.UndoRun(ctx, cp, t.opts.Now()); err != nil {
			return out, err
		}
	}
	return out, nil
}

// write replaces path with data (mode), creating its directories: through
// a temporary file beside it, renamed over it.
func (t *Tracker) write(path string, data []byte, mode fs.FileMode) error {
	rel := filepath.FromSlash(path)
	if err := t.root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".lathe-"+rand.Text()[:8]+".tmp")
	f, err := t.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode.Perm())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.root.Rename(tmp, rel)
	}
	if err != nil {
		_ = t.root.Remove(tmp)
	}
	return err
}

// Last returns the session's last checkpoint not undone (ErrNothingToUndo
// when there is none), and the last one undone since the last run that
// was not (for redo; nil when there is none).
func Last(cps []session.Checkpoint) (undo *session.Checkpoint, redo *session.Checkpoint) {
	for i := len(cps) - 1; i >= 0; i-- {
		c := &cps[i]
		if c.Undone.IsZero() {
			return c, redo
		}
		if redo == nil || c.Undone.After(redo.Undone) {
			redo = c
		}
	}
	return nil, redo
}
