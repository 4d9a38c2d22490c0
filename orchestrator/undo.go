package orchestrator

import (
	"context"
	"errors"
	"slices"

	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/session"
)

// ErrNoCheckpoints is what undo, redo and rewind fail with when the
// session keeps no checkpoints (no store), or is not saved yet.
var ErrNoCheckpoints = errors.New("this session keeps no checkpoints: nothing to undo")

// Turn is a run that can be undone, for a picker: its prompt and what it
// changed.
type Turn struct {
	Checkpoint session.Checkpoint
	Prompt     string // the run's prompt; empty when it is no longer in the history
}

// Turns lists the runs of the session that can be taken back (not undone),
// oldest first.
func (s *Session) Turns(ctx context.Context) ([]Turn, error) {
	if err := s.ops.begin(opUndo); err != nil {
		return nil, err
	}
	defer s.end()
	cps, err := s.checkpoints(ctx)
	if err != nil {
		return nil, err
	}
	var out []Turn
	var before map[int]string // the prompts the session no longer holds, read at once
	for _, c := range cps {
		if !c.Undone.IsZero() {
			continue
		}
		t := Turn{Checkpoint: c}
		r, ok := s.opts.Recorder.(PromptReader)
		switch {
		case c.Seq < s.win.Base && ok:
			if before == nil {
				if before, err = r.PromptsBefore(ctx, s.id, s.win.Base); err != nil {
					return nil, err
				}
			}
			t.Prompt = before[c.Seq]
		default:
			if m, ok := s.message(ctx, c.Seq); ok && m.Role == "user" {
				t.Prompt = m.Content
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// PromptReader reads a saved session's prompts before a seq in one go:
// those of the runs a session no longer holds. Package session/sqlite
// implements it.
type PromptReader interface {
	PromptsBefore(ctx context.Context, sessionID string, seq int) (map[int]string, error)
}

func (s *Session) checkpoints(ctx context.Context) ([]session.Checkpoint, error) {
	if s.opts.Checkpoints == nil || s.opts.Recorder == nil || !s.created {
		return nil, ErrNoCheckpoints
	}
	return s.opts.Checkpoints.Checkpoints(ctx, s.id)
}

// PlanUndo works out what undoing the last run does: each file it changed
// back to what it was, the files changed since refused (see
// checkpoint.Plan). Nothing changes until ApplyPlan.
func (s *Session) PlanUndo(ctx context.Context) (checkpoint.Plan, error) {
	return s.planOne(ctx, false)
}

// PlanRedo works out what doing the last undone run again does.
func (s *Session) PlanRedo(ctx context.Context) (checkpoint.Plan, error) {
	return s.planOne(ctx, true)
}

func (s *Session) planOne(ctx context.Context, redo bool) (checkpoint.Plan, error) {
	if err := s.ops.begin(opUndo); err != nil {
		return checkpoint.Plan{}, err
	}
	defer s.end()
	cps, err := s.checkpoints(ctx)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	undo, again := checkpoint.Last(cps)
	switch {
	case redo && again == nil:
		return checkpoint.Plan{}, session.ErrNothingToRedo
	case redo:
		return s.opts.Checkpoints.PlanRedo(ctx, *again)
	case undo == nil:
		return checkpoint.Plan{}, checkpoint.ErrNothingToUndo
	}
	return s.opts.Checkpoints.PlanUndo(ctx, *undo)
}

// ApplyPlan carries out a plan of PlanUndo, PlanRedo or PlanRewind
// (force: files changed since are overwritten too), then takes the
// conversation up again as the store now has it: after an undo the runs'
// exchanges are gone from what the model sees next; after a redo the
// run's is back, when nothing was said since. The History returned is
// the conversation to show.
func (s *Session) ApplyPlan(ctx context.Context, p checkpoint.Plan, force bool) (checkpoint.Outcome, *History, error) {
	if err := s.ops.begin(opUndo); err != nil {
		return checkpoint.Outcome{}, nil, err
	}
	defer s.end()
	if s.opts.Checkpoints == nil {
		return checkpoint.Outcome{}, nil, ErrNoCheckpoints
	}
	out, err := s.opts.Checkpoints.Apply(ctx, p, force)
	if err != nil {
		return out, nil, err
	}
	h, err := s.reload(ctx)
	return out, h, err
}

// PlanRewind works out what taking back every run from the one whose
// checkpoint is to on does: each file they changed back to what it was
// before the oldest, the files changed since refused (see
// checkpoint.Tracker.PlanRewind). Nothing changes until ApplyPlan.
func (s *Session) PlanRewind(ctx context.Context, to int64) (checkpoint.Plan, error) {
	if err := s.ops.begin(opUndo); err != nil {
		return checkpoint.Plan{}, err
	}
	defer s.end()
	cps, err := s.checkpoints(ctx)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	at := slices.IndexFunc(cps, func(c session.Checkpoint) bool { return c.ID == to })
	if at < 0 {
		return checkpoint.Plan{}, checkpoint.ErrNothingToUndo
	}
	var runs []session.Checkpoint
	for _, c := range cps[at:] {
		if c.Undone.IsZero() {
			runs = append(runs, c)
		}
	}
	return s.opts.Checkpoints.PlanRewind(ctx, runs)
}

// reload takes the conversation up again from the store.
func (s *Session) reload(ctx context.Context) (*History, error) {
	load := s.opts.Recorder.Load
	if r, ok := s.opts.Recorder.(ResumeLoader); ok {
		load = r.LoadResume
	}
	saved, err := load(ctx, s.id)
	if err != nil {
		return nil, err
	}
	h, err := s.restoreFrom(ctx, saved, false)
	s.publish()
	return h, err
}
