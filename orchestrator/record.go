package orchestrator

import (
	"context"
	"strings"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// Recorder keeps a session durably. The loop writes through it as things
// happen, so that a crash loses at most the reply being streamed. Package
// session/sqlite implements it.
type Recorder interface {
	// CreateSession records a new session.
	CreateSession(ctx context.Context, r session.Record) error
	// SetTitle names a session.
	SetTitle(ctx context.Context, sessionID, title string) error
	// SaveMessage commits one complete message at position m.Seq of the
	// session's history and marks the session updated. Tool results may
	// arrive out of order; a message already at m.Seq is replaced.
	SaveMessage(ctx context.Context, sessionID string, m session.Message) error
	// SaveCompaction records that requests now replace the messages before
	// c.Seq with c.Summary.
	SaveCompaction(ctx context.Context, sessionID string, c session.Compaction) error
	// SaveMode records the session's mode from position m.Seq of its
	// history on; a record at the same seq is replaced.
	SaveMode(ctx context.Context, sessionID string, m session.ModeRecord) error
	// StartRun records the start of a prompt's run and returns its id.
	StartRun(ctx context.Context, r session.RunStart) (int64, error)
	// FinishRun records how a run ended.
	FinishRun(ctx context.Context, runID int64, end session.RunEnd) error
	// Claim makes this process the one using a saved session; it fails
	// with a *session.InUseError while another process uses it. A session
	// is claimed by creating it, too.
	Claim(ctx context.Context, sessionID string) error
	// Release lets other processes use the session again.
	Release(ctx context.Context, sessionID string) error
	// Delete removes a session and everything kept of it.
	Delete(ctx context.Context, sessionID string) error
	// Load returns a saved session (to take it up again after an undo).
	Load(ctx context.Context, sessionID string) (session.Saved, error)
}

// maxTitle is the longest a session's title may be, in runes.
const maxTitle = 60

// storeCtx is the context of store writes: they must land even when the
// run is being cancelled, so that what is complete is kept.
func (r *run) storeCtx() context.Context { return context.WithoutCancel(r.ctx) }

// record appends a complete message to the history and commits it.
func (r *run) record(m provider.Message) {
	s := r.s
	s.messages = append(s.messages, m)
	r.save(session.Message{Seq: s.length() - 1, Message: m})
}

// recordNoReply appends an empty reply for a prompt the model never
// answered, and commits it marked as cut.
func (r *run) recordNoReply() {
	s := r.s
	m := provider.Message{Role: "assistant"}
	s.messages = append(s.messages, m)
	r.save(session.Message{Seq: s.length() - 1, Message: m, Cut: true})
}

// recordReply appends a reply to the history and commits it, with what the
// server counted for it.
func (r *run) recordReply(rep *reply) {
	s := r.s
	m := rep.message()
	s.messages = append(s.messages, m)
	saved := session.Message{Seq: s.length() - 1, Message: m, Cut: !rep.done}
	if c := rep.metrics; c.PromptTokens > 0 {
		saved.Counts = &session.Counts{Prompt: c.PromptTokens, Completion: c.CompletionTokens}
	}
	r.save(saved)
}

// save commits one message. A store that fails is reported once; the run
// goes on, but the session will not resume past that point.
func (r *run) save(m session.Message) {
	st := r.s.opts.Recorder
	if st == nil || r.storeErr.Load() {
		return
	}
	m.Created = r.s.opts.Now()
	if err := st.SaveMessage(r.storeCtx(), r.s.id, m); err != nil {
		r.storeFailed(err)
	}
}

// saveMode commits the session's mode record: a mode change, or the
// plan's checklist updated.
func (r *run) saveMode() {
	st := r.s.opts.Recorder
	if st == nil || r.storeErr.Load() || !r.s.created {
		return
	}
	if err := st.SaveMode(r.storeCtx(), r.s.id, r.s.modeRec); err != nil {
		r.storeFailed(err)
		return
	}
	r.s.keptMode()
}

func (r *run) storeFailed(err error) {
	r.s.unsaved = true
	if !r.storeErr.CompareAndSwap(false, true) {
		return // told already; calls that finish together may both fail
	}
	r.s.opts.Log.Error().Err(err).Msg("session store failed")
	r.emit(Warning{Text: "the session can no longer be saved (" + err.Error() + "); it goes on, but will not resume past this point"})
}

// begin records the session, if new, and the start of a run.
func (r *run) begin(prompt string) {
	s, st := r.s, r.s.opts.Recorder
	if st == nil {
		return
	}
	if !s.created {
		rec := session.Record{ID: s.id, Title: titleOf(prompt), Dir: s.opts.Dir, Model: s.model.Name, Created: s.opts.Now()}
		if err := st.CreateSession(r.storeCtx(), rec); err != nil {
			r.storeFailed(err)
			return
		}
		s.created, s.title, r.created = true, rec.Title, true
		s.modeRec.Created = rec.Created
		r.saveMode()
		s.publish()
	}
	id, err := st.StartRun(r.storeCtx(), session.RunStart{SessionID: s.id, Model: s.model.Name,
		Options: s.opts.Config.Options.Map(s.model.NumCtx), Started: r.start})
	if err != nil {
		r.storeFailed(err)
		return
	}
	r.runID = id
	if cp := s.opts.Checkpoints; cp != nil {
		// The prompt goes at the end of the history, after the system
		// prompt: that is where undoing the run takes the history back to.
		if err := cp.Begin(r.storeCtx(), s.id, s.length()); err != nil {
			r.emit(Warning{Text: "the files this run changes cannot be kept for undo (" + err.Error() + ")"})
		} else {
			r.checkpointing = true
		}
	}
}

// end records how the run ended.
func (r *run) end(err error) {
	if r.checkpointing {
		r.s.opts.Checkpoints.End()
	}
	st := r.s.opts.Recorder
	if st == nil || r.runID == 0 || r.storeErr.Load() {
		return
	}
	e := session.RunEnd{StopReason: string(r.res.StopReason), Turns: r.res.Turns, ToolCalls: r.res.ToolCalls,
		PromptTokens: r.res.Usage.PromptTokens, CompletionTokens: r.res.Usage.CompletionTokens, Completed: r.s.opts.Now()}
	if err != nil {
		e.Failure = err.Error()
	}
	if ferr := st.FinishRun(r.storeCtx(), r.runID, e); ferr != nil {
		r.s.opts.Log.Error().Err(ferr).Msg("session store failed")
	}
}

// titleOf is a session title taken from its first prompt.
func titleOf(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.Join(strings.Fields(line), " ")
	if r := []rune(line); len(r) > maxTitle {
		line = string(r[:maxTitle-1]) + "…"
	}
	return line
}
