package orchestrator

import (
	"context"
	"encoding/json"
	"slices"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
)

// restore continues a saved session, claimed first (one process at a time
// uses a session): its id, its history, its compaction and its mode. Where the process died the history is mended, and the
// mending is saved: a tool call without a result gets an "interrupted"
// result, and a prompt without a reply an empty reply, so that the history
// is valid for the model again. The model must be known.
func (s *Session) restore(ctx context.Context, saved session.Saved) (*History, error) {
	return s.restoreFrom(ctx, saved, true)
}

// restoreFrom is restore; with atStart, a mode asked for at start wins
// over the saved one (not when taking the conversation up again after an
// undo).
func (s *Session) restoreFrom(ctx context.Context, saved session.Saved, atStart bool) (*History, error) {
	if st := s.opts.Recorder; st != nil {
		if err := st.Claim(ctx, saved.ID); err != nil {
			return nil, err
		}
	}
	msgs, mended := session.Mend(saved.Messages, saved.From, prompts.InterruptedByExit())
	if err := s.restoreMode(saved.Modes); err != nil {
		return nil, err
	}
	system, err := s.mode.Prompt(s.opts.Env)
	if err != nil {
		return nil, err
	}
	s.id, s.title, s.created = saved.ID, saved.Title, true
	s.modes = slices.Clone(saved.Modes)
	s.messages = append([]provider.Message{{Role: "system", Content: system}}, msgs...)
	s.win.Compaction, s.win.Base, s.win.Asked, s.unsaved = saved.Compaction, saved.From, "", false
	if len(msgs) == 0 || msgs[0].Role != "user" || prompts.IsNote(msgs[0].Content) {
		// A request may send the prompt before the messages read: the one
		// a compaction in the middle of a run keeps (see window.View).
		s.win.Asked = s.askedBefore(ctx)
	}
	s.recount(saved)
	changed := len(saved.Modes) == 0 // a session saved before modes were: build mode, recorded now
	if m := s.opts.Mode; atStart && m != nil && m.Name() != s.mode.Name() {
		// A mode asked for at start wins over the saved one.
		if err := s.setMode(ctx, mode.Own(m), "chosen at start"); err != nil {
			return nil, err
		}
		changed = true
	}
	if st := s.opts.Recorder; st != nil {
		for _, m := range mended {
			m.Created = s.opts.Now()
			if err := st.SaveMessage(ctx, s.id, m); err != nil {
				return nil, err
			}
		}
		if changed {
			if err := st.SaveMode(ctx, s.id, s.modeRec); err != nil {
				return nil, err
			}
			s.keptMode()
		}
	}
	s.opts.Log.Debug().Str("session", s.id).Int("messages", len(msgs)).Int("mended", len(mended)).Msg("session restored")
	whole := s.history(msgs, saved.From, saved.Messages, mended)
	h := &History{ID: s.id, Title: s.title, Compaction: saved.Compaction, Modes: saved.Modes}
	return paged(h, whole, saved.From, s.olderPages()), nil
}

// recount takes up the server's last count of a restored conversation:
// the last reply saved with one, unless the prompt changed after it (a
// compaction, a mode change). Without one the window starts from an
// estimate.
func (s *Session) recount(saved session.Saved) {
	s.win.Forget()
	for i := len(saved.Messages) - 1; i >= 0; i-- {
		m := saved.Messages[i]
		at := m.Seq - s.win.Base + 1 // its index in s.messages
		if m.Counts == nil || at < 1 || at >= len(s.messages) || s.messages[at].Role != "assistant" {
			continue
		}
		if c := saved.Compaction; c != nil && (c.Created.After(m.Created) || c.Seq > m.Seq) {
			return
		}
		if n := len(saved.Modes); n > 0 && saved.Modes[n-1].Created.After(m.Created) {
			return
		}
		view := s.win.View(s.messages[:at])
		s.win.Counted(provider.Metrics{PromptTokens: m.Counts.Prompt, CompletionTokens: m.Counts.Completion}, view, m.Seq+2)
		s.cache.seed(view, s.prefixOf(view), m.Counts.Prompt) // the server may hold it still
		return
	}
}

// history pairs the restored messages with what was kept of each tool
// result (saved, or mended), working out the subject of a call whose
// result never said it.
func (s *Session) history(msgs []provider.Message, first int, saved, mended []session.Message) []session.Message {
	return historyOf(s.every, msgs, first, saved, mended)
}

// historyOf is history with the tools of every mode, every, to work out
// subjects: the messages of msgs, from seq first on.
func historyOf(every *tools.Registry, msgs []provider.Message, first int, saved, mended []session.Message) []session.Message {
	meta, cut := map[int]*session.ToolMeta{}, map[int]bool{}
	for _, list := range [][]session.Message{saved, mended} {
		for _, m := range list {
			if m.Seq < first {
				continue
			}
			if m.Tool != nil {
				meta[m.Seq] = m.Tool
			}
			cut[m.Seq] = m.Cut
		}
	}
	out := make([]session.Message, len(msgs))
	var calls []provider.ToolCall // the calls of the last reply, by result
	for i, m := range msgs {
		seq := first + i
		out[i] = session.Message{Seq: seq, Message: m}
		switch {
		case m.Role == "assistant":
			calls = m.ToolCalls
			out[i].Cut = cut[seq]
		case m.Role == "tool":
			t := meta[seq]
			if t == nil {
				t = &session.ToolMeta{Outcome: string(OutcomeInterrupted), Summary: "interrupted"}
			}
			if t.Subject == "" && len(calls) > 0 {
				t.Subject = subjectOf(every, calls[0])
			}
			if len(calls) > 0 {
				calls = calls[1:]
			}
			out[i].Tool = t
		}
	}
	return out
}

// subjectOf is a call's key argument, worked out by its tool; empty when
// the call does not validate.
func subjectOf(every *tools.Registry, c provider.ToolCall) string {
	tool, ok := every.Lookup(c.Name)
	if !ok {
		return ""
	}
	call, err := tool.Prepare(json.RawMessage(c.Args()))
	if err != nil {
		return ""
	}
	return call.Subject()
}

// restoreMode takes a resumed session's mode from its last record.
func (s *Session) restoreMode(recs []session.ModeRecord) error {
	if len(recs) == 0 {
		return nil
	}
	rec := recs[len(recs)-1]
	m, err := mode.Parse(rec.Mode)
	if err != nil {
		return err
	}
	if _, ok := m.(mode.Build); ok && rec.Plan != nil {
		m = mode.Build{Plan: plan.FromRecord(rec.Plan)}
	}
	s.enter(m)
	s.modeRec = rec
	return nil
}

// ResumeLoader loads a session to resume without the messages its
// requests no longer send (see session.Saved.From). Package
// session/sqlite implements it.
type ResumeLoader interface {
	LoadResume(ctx context.Context, sessionID string) (session.Saved, error)
}

// Pager reads a saved session's messages: those a resume did not read
// (see session.Saved.From), and those a session let go of once they were
// summarized (see Session.dropSent). Package session/sqlite implements
// it.
type Pager interface {
	// Messages returns the messages from seq from up to seq to (excluded).
	Messages(ctx context.Context, sessionID string, from, to int) ([]session.Message, error)
}

// olderPages reads the pages of the history before the messages the
// restore read from the store; nil when it read them all.
func (s *Session) olderPages() func(ctx context.Context, before, n int) ([]session.Message, error) {
	pager, ok := s.opts.Recorder.(Pager)
	if s.win.Base == 0 || !ok {
		return nil
	}
	return s.pagesOf(pager)
}

// pagesOf reads any page of the history from pager (see History.Older).
func (s *Session) pagesOf(pager Pager) func(ctx context.Context, before, n int) ([]session.Message, error) {
	id, every := s.id, s.every
	return func(ctx context.Context, before, n int) ([]session.Message, error) {
		from := max(0, before-max(n, 1))
		var page []session.Message
		for {
			var err error
			if page, err = pager.Messages(ctx, id, from, before); err != nil {
				return nil, err
			}
			if from == 0 || len(page) > 0 && page[0].Seq == from && page[0].Message.Role != "tool" {
				break
			}
			from = max(0, from-16) // back to the reply whose results start the page
		}
		msgs := make([]provider.Message, len(page))
		for i, m := range page {
			msgs[i] = m.Message
		}
		return historyOf(every, msgs, from, page, nil), nil
	}
}
