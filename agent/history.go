package agent

import (
	"context"
	"strings"

	"github.com/ollama/ollama/api"
)

// Messages a resumed session gets where the process died.
const (
	interruptedResult = "interrupted: lathe stopped before this call finished; its effect, if any, is unknown"
	maxTitle          = 60
)

// storeCtx is the context of store writes: they must land even when the
// run is being cancelled, so that what is complete is kept.
func (r *run) storeCtx() context.Context { return context.WithoutCancel(r.ctx) }

// record appends a complete message to the history and commits it.
func (r *run) record(m api.Message) {
	s := r.s
	s.messages = append(s.messages, m)
	r.save(StoredMessage{Seq: len(s.messages) - 2, Message: m})
}

// save commits one message. A store that fails is reported once; the run
// goes on, but the session will not resume past that point.
func (r *run) save(m StoredMessage) {
	st := r.s.opts.Store
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
	st := r.s.opts.Store
	if st == nil || r.storeErr.Load() || !r.s.created {
		return
	}
	if err := st.SaveMode(r.storeCtx(), r.s.id, r.s.modeRec); err != nil {
		r.storeFailed(err)
	}
}

func (r *run) storeFailed(err error) {
	if !r.storeErr.CompareAndSwap(false, true) {
		return // told already; calls that finish together may both fail
	}
	r.s.opts.Log.Error().Err(err).Msg("session store failed")
	r.emit(Warning{Text: "the session can no longer be saved (" + err.Error() + "); it goes on, but will not resume past this point"})
}

// begin records the session, if new, and the start of a run.
func (r *run) begin(prompt string) {
	s, st := r.s, r.s.opts.Store
	if st == nil {
		return
	}
	if !s.created {
		rec := SessionRecord{ID: s.id, Title: titleOf(prompt), Dir: s.opts.Dir, Model: s.model.Name, Created: s.opts.Now()}
		if err := st.CreateSession(r.storeCtx(), rec); err != nil {
			r.storeFailed(err)
			return
		}
		s.created, s.title = true, rec.Title
		s.modeRec.Created = rec.Created
		r.saveMode()
	}
	id, err := st.StartRun(r.storeCtx(), RunRecord{SessionID: s.id, Model: s.model.Name, Options: s.options, Started: r.start})
	if err != nil {
		r.storeFailed(err)
		return
	}
	r.runID = id
}

// end records how the run ended.
func (r *run) end(err error) {
	st := r.s.opts.Store
	if st == nil || r.runID == 0 || r.storeErr.Load() {
		return
	}
	e := RunEnd{StopReason: r.res.StopReason, Turns: r.res.Turns, ToolCalls: r.res.ToolCalls,
		Usage: r.res.Usage, Completed: r.s.opts.Now()}
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

// Restore continues a saved session: its id, its history, its
// compaction and its mode. Where the process died the history is mended, and the
// mending is saved: a tool call without a result gets an "interrupted"
// result, and a prompt without a reply an empty reply, so that the
// history is valid for Ollama again. Call Prepare first.
func (s *Session) Restore(ctx context.Context, saved SavedSession) error {
	msgs, mended := mend(saved.Messages)
	if err := s.restoreMode(saved.Modes); err != nil {
		return err
	}
	system, err := systemPrompt(s.opts.Env, s.mode)
	if err != nil {
		return err
	}
	s.id, s.title, s.created = saved.ID, saved.Title, true
	s.messages = append([]api.Message{{Role: "system", Content: system}}, msgs...)
	s.compaction = saved.Compaction
	s.used, s.usedAt = 0, 0
	changed := len(saved.Modes) == 0 // a session saved before modes were: build mode, recorded now
	if m := s.opts.Mode; m != nil && m.Name() != s.mode.Name() {
		// A mode asked for at start wins over the saved one.
		if err := s.setMode(ownMode(m), "chosen at start"); err != nil {
			return err
		}
		changed = true
	}
	if st := s.opts.Store; st != nil {
		for _, m := range mended {
			m.Created = s.opts.Now()
			if err := st.SaveMessage(ctx, s.id, m); err != nil {
				return err
			}
		}
		if changed {
			if err := st.SaveMode(ctx, s.id, s.modeRec); err != nil {
				return err
			}
		}
	}
	s.opts.Log.Debug().Str("session", s.id).Int("messages", len(msgs)).Int("mended", len(mended)).Msg("session restored")
	return nil
}

// mend lays saved messages out in seq order, filling in what a dead
// process never wrote: the results of calls that were running, and a
// reply to a prompt left unanswered. It returns the history and the
// messages it added, with their seq.
func mend(saved []StoredMessage) ([]api.Message, []StoredMessage) {
	bySeq := make(map[int]api.Message, len(saved))
	last := -1
	for _, m := range saved {
		bySeq[m.Seq] = m.Message
		last = max(last, m.Seq)
	}
	var out []api.Message
	var added []StoredMessage
	fill := func(m api.Message) {
		added = append(added, StoredMessage{Seq: len(out), Message: m})
		out = append(out, m)
	}
	for seq := 0; seq <= last; seq++ {
		m, ok := bySeq[seq]
		if !ok {
			// Messages are written in order but for the results of one
			// reply's calls, which are filled in below; a gap elsewhere is
			// damage, and the history stops before it, so that positions
			// in it stay the positions in the store.
			break
		}
		out = append(out, m)
		for _, c := range m.ToolCalls {
			if next, ok := bySeq[seq+1]; ok && next.Role == "tool" {
				out = append(out, next)
				seq++
				continue
			}
			fill(api.Message{Role: "tool", Content: interruptedResult, ToolName: c.Function.Name, ToolCallID: c.ID})
			seq++
		}
	}
	if len(out) > 0 && out[len(out)-1].Role == "user" {
		fill(api.Message{Role: "assistant"})
	}
	return out, added
}
