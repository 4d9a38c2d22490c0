package checkpoint

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"lathe/orchestrator/session"
)

// Do is what a plan does to a file.
type Do string

const (
	Restore  Do = "restore"  // write its earlier content back
	Recreate Do = "recreate" // it was removed: write it again
	Remove   Do = "remove"   // it was created: remove it
	Keep     Do = "keep"     // it is as it should be already
	Refuse   Do = "refuse"   // changed since, or not restorable: left alone
)

// Done says what an action that was applied did to its file: "restored",
// "recreated" or "removed".
func (d Do) Done() string {
	switch d {
	case Remove:
		return "removed"
	case Recreate:
		return "recreated"
	}
	return "restored"
}

// Action is what undoing (or redoing) a run, or rewinding several, does
// to one file.
type Action struct {
	Path string
	Do   Do
	// Why says why a file is refused: changed since the run (Conflict)
	// or not restorable (the checkpoint's problem).
	Why      string
	Conflict bool
	// Diff shows the change: the file as it is now against what it
	// becomes; for a conflict, against what forcing would make it.
	Diff string
	// Since shows, for a conflict, what changed since: the file as the
	// run (for a redo, the undo) left it against what it is now, or
	// against what the next run found.
	Since  string
	target session.FileState
}

// Plan is what taking runs back, or doing one again, would do.
type Plan struct {
	// Runs are the runs taken back, newest first: one for an undo or a
	// redo, more for a rewind.
	Runs    []session.Checkpoint
	Redo    bool
	Actions []Action
}

// Refused are the actions that leave their file alone.
func (p Plan) Refused() []Action {
	var out []Action
	for _, a := range p.Actions {
		if a.Do == Refuse {
			out = append(out, a)
		}
	}
	return out
}

// Conflicts reports whether a file was changed since the run.
func (p Plan) Conflicts() bool {
	for _, a := range p.Actions {
		if a.Conflict {
			return true
		}
	}
	return false
}

// ErrNothingToUndo is what undo finds with no run left to take back.
var ErrNothingToUndo = errors.New("nothing to undo")

// PlanUndo works out what taking checkpoint cp's run back does: every file
// it changed back to what it was before the run, unless it was changed
// since (a conflict) or cannot be restored.
func (t *Tracker) PlanUndo(ctx context.Context, cp session.Checkpoint) (Plan, error) {
	return t.plan(ctx, []session.Checkpoint{cp}, false)
}

// PlanRedo works out what doing cp's run again does: every file back to
// what the run left, unless it changed since the undo.
func (t *Tracker) PlanRedo(ctx context.Context, cp session.Checkpoint) (Plan, error) {
	return t.plan(ctx, []session.Checkpoint{cp}, true)
}

// PlanRewind works out what taking back runs (each run since the oldest
// that is not undone) does: every file they changed back to what it was
// before the oldest that changed it, unless it was changed since the
// newest left it, or between two of them (a conflict), or one of them
// cannot restore it. A file is restored whole or left alone.
func (t *Tracker) PlanRewind(ctx context.Context, runs []session.Checkpoint) (Plan, error) {
	if len(runs) == 0 {
		return Plan{}, ErrNothingToUndo
	}
	runs = slices.Clone(runs)
	slices.SortFunc(runs, func(a, b session.Checkpoint) int { return cmp.Compare(b.ID, a.ID) }) // newest first
	return t.plan(ctx, runs, false)
}

func (t *Tracker) plan(ctx context.Context, runs []session.Checkpoint, redo bool) (Plan, error) {
	p := Plan{Runs: runs, Redo: redo}
	byPath := map[string][]session.FileChange{} // newest first
	var paths []string
	for _, cp := range runs {
		for _, f := range cp.Files {
			if _, seen := byPath[f.Path]; !seen {
				paths = append(paths, f.Path)
			}
			byPath[f.Path] = append(byPath[f.Path], f)
		}
	}
	slices.Sort(paths)
	for _, path := range paths {
		a, err := t.action(ctx, path, byPath[path], redo)
		if err != nil {
			return Plan{}, err
		}
		p.Actions = append(p.Actions, a)
	}
	return p, nil
}

// action is what becomes of the file at path, which the runs changed
// (changes, newest first; one for a redo).
func (t *Tracker) action(ctx context.Context, path string, changes []session.FileChange, redo bool) (Action, error) {
	newest, oldest := changes[0], changes[len(changes)-1]
	expect, target := newest.After, oldest.Before
	left, restored := "as lathe left it", "before the request"
	if len(changes) > 1 {
		restored = "before the requests"
	}
	if redo {
		expect, target = newest.Before, newest.After
		left, restored = "as the undo left it", "as the request left it"
	}
	a := Action{Path: path, target: target}
	for _, f := range changes {
		if f.Problem != "" {
			a.Do, a.Why = Refuse, f.Problem
			return a, nil
		}
	}
	now, nowData, err := t.current(path)
	if unreachable := (*unreachableError)(nil); errors.As(err, &unreachable) {
		a.Do, a.Why = Refuse, unreachable.Error()
		return a, nil
	}
	if err != nil {
		return Action{}, err
	}
	switch between := broken(changes); {
	case now.Hash == target.Hash && (!now.Exists() || now.Mode == target.Mode):
		a.Do = Keep
	case now.Hash != expect.Hash:
		a.Do, a.Conflict = Refuse, true
		a.Why = "changed since the run"
		if redo {
			a.Why = "changed since the undo"
		}
		leftData, _ := t.content(ctx, expect)
		a.Since = diff(path+" ("+left+")", path+" (now)", leftData, nowData)
		a.Diff = t.forced(ctx, path, nowData, target, restored)
	case between >= 0:
		a.Do, a.Conflict = Refuse, true
		a.Why = "changed between two of the requests"
		leftData, _ := t.content(ctx, changes[between+1].After)
		foundData, _ := t.content(ctx, changes[between].Before)
		a.Since = diff(path+" ("+left+")", path+" (as the next request found it)", leftData, foundData)
		a.Diff = t.forced(ctx, path, nowData, target, restored)
	case !target.Exists():
		a.Do = Remove
		a.Diff = diff(path, "/dev/null", nowData, nil)
	default:
		data, err := t.content(ctx, target)
		if err != nil {
			a.Do, a.Why = Refuse, err.Error()
			break
		}
		a.Do = Restore
		if !now.Exists() {
			a.Do = Recreate
		}
		a.Diff = diff(path, path, nowData, data)
	}
	return a, nil
}

// broken is where a file changed between two runs (changes, newest
// first): the i whose run found it other than run i+1 left it; -1 when
// each found it as the one before left it.
func broken(changes []session.FileChange) int {
	for i := range len(changes) - 1 {
		if changes[i].Before.Hash != changes[i+1].After.Hash {
			return i
		}
	}
	return -1
}

// forced is the diff of what forcing makes of a file changed since: from
// what it is now (nowData) to target, restored names what that is.
func (t *Tracker) forced(ctx context.Context, path string, nowData []byte, target session.FileState, restored string) string {
	if !target.Exists() {
		return diff(path+" (now)", "/dev/null", nowData, nil)
	}
	data, err := t.content(ctx, target)
	if err != nil {
		return "its content " + restored + " cannot be read: " + err.Error() + "\n"
	}
	return diff(path+" (now)", path+" ("+restored+")", nowData, data)
}

// current is the file at path as it is now: its state, and its content
// when it is a regular file small enough to compare (as large as a file
// kept, and at least DefaultMaxFile: a lower max_file since the run does
// not make its files count as changed). A path that a symlink or a file
// in place of one of its directories keeps from being reached is an
// *unreachableError.
func (t *Tracker) current(path string) (session.FileState, []byte, error) {
	fi, err := t.root.Lstat(filepath.FromSlash(path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return session.FileState{}, nil, nil
	case err != nil:
		if u := t.unreachable(path); u != nil {
			return session.FileState{}, nil, u
		}
		return session.FileState{}, nil, err
	case !fi.Mode().IsRegular() || fi.Size() > max(t.opts.MaxFile, DefaultMaxFile):
		// Not what any checkpoint holds: it counts as changed.
		return session.FileState{Hash: "other", Mode: fi.Mode().Perm(), Size: fi.Size()}, nil, nil
	}
	data, err := t.root.ReadFile(filepath.FromSlash(path))
	if err != nil {
		return session.FileState{}, nil, err
	}
	return session.FileState{Hash: hashOf(data), Mode: fi.Mode().Perm(), Size: int64(len(data))}, data, nil
}

// unreachableError is a file undo cannot reach: one of its directories
// is now a symlink (that leads outside the working directory, or the
// file could have been reached through it) or no directory at all.
type unreachableError struct {
	dir  string
	kind fs.FileMode // its type now
}

func (e *unreachableError) Error() string {
	if e.kind&fs.ModeSymlink != 0 {
		return "leads outside the working directory through " + e.dir + ", a symlink now: undo cannot restore it"
	}
	return e.dir + " is no longer a directory: undo cannot restore it"
}

// unreachable is why path cannot be reached: the first of its
// directories that is not one now; nil when each is.
func (t *Tracker) unreachable(path string) *unreachableError {
	dirs := strings.Split(path, "/")
	for i := range len(dirs) - 1 {
		dir := strings.Join(dirs[:i+1], "/")
		fi, err := t.root.Lstat(filepath.FromSlash(dir))
		if err != nil {
			return nil
		}
		if !fi.IsDir() {
			return &unreachableError{dir: dir, kind: fi.Mode().Type()}
		}
	}
	return nil
}

// content is the content a state names (nil for an absent file).
func (t *Tracker) content(ctx context.Context, s session.FileState) ([]byte, error) {
	if !s.Exists() {
		return nil, nil
	}
	return t.store.Blob(ctx, s.Hash)
}

// diff is a unified diff of a against b, "" when they are the same; a
// binary content is said to differ, not shown.
func diff(nameA, nameB string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	if binary(a) || binary(b) {
		return fmt.Sprintf("binary files %s and %s differ\n", nameA, nameB)
	}
	return udiff.Unified(nameA, nameB, string(a), string(b))
}

func binary(b []byte) bool { return strings.IndexByte(string(b[:min(len(b), 8000)]), 0) >= 0 }
