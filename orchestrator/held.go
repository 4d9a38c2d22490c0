package orchestrator

import (
	"context"
	"slices"

	"lathe/orchestrator/provider"
	"lathe/prompts"
)

// The session holds its history from seq s.win.Base on: s.messages is
// the system prompt, then message Base, Base+1... Once a compaction is
// recorded, the messages before its point, which requests no longer
// send, are let go when the store holds them all and reads them back
// (a Pager): for the hooks' transcript, undo's prompts, the pages of
// history a UI scrolls back to. A resume reads none of them. Without
// such a store the session holds its whole history.

// length is how many messages the history has, those not held included:
// the seq of the next one.
func (s *Session) length() int {
	if len(s.messages) == 0 {
		return 0
	}
	return s.win.Base + len(s.messages) - 1
}

// held returns message seq when the session holds it.
func (s *Session) held(seq int) (provider.Message, bool) {
	if i := seq - s.win.Base + 1; i >= 1 && i < len(s.messages) {
		return s.messages[i], true
	}
	return provider.Message{}, false
}

// dropSent lets go of the messages before the compaction point, once the
// store holds every message of the conversation and can read them back.
func (s *Session) dropSent() {
	if _, ok := s.opts.Recorder.(Pager); !ok || !s.created || s.unsaved {
		return
	}
	s.messages = s.win.Drop(s.messages, s.win.CompactedTo())
}

// message returns message seq of the history, read from the store when
// the session no longer holds it; false when neither has it.
func (s *Session) message(ctx context.Context, seq int) (provider.Message, bool) {
	if m, ok := s.held(seq); ok || seq >= s.win.Base {
		return m, ok
	}
	pager, ok := s.opts.Recorder.(Pager)
	if !ok || seq < 0 {
		return provider.Message{}, false
	}
	page, err := pager.Messages(ctx, s.id, seq, seq+1)
	if err != nil || len(page) != 1 || page[0].Seq != seq {
		return provider.Message{}, false
	}
	return page[0].Message, true
}

// older reads the messages from seq from up to Base from the store, the
// ones the session no longer holds; nil without a store that reads them.
func (s *Session) older(ctx context.Context) func(from int) ([]provider.Message, error) {
	pager, ok := s.opts.Recorder.(Pager)
	if !ok {
		return nil
	}
	id, base := s.id, s.win.Base
	return func(from int) ([]provider.Message, error) {
		page, err := pager.Messages(ctx, id, from, base)
		if err != nil {
			return nil, err
		}
		msgs := make([]provider.Message, len(page))
		for i, m := range page {
			msgs[i] = m.Message
		}
		return msgs, nil
	}
}

// walkBack visits the history's messages from the newest back, those
// held, then those before them read from the store, until visit returns
// false or the history starts.
func (s *Session) walkBack(ctx context.Context, visit func(provider.Message) bool) {
	for i := len(s.messages) - 1; i >= 1; i-- {
		if !visit(s.messages[i]) {
			return
		}
	}
	s.readBack(ctx, s.win.Base, visit)
}

// readBack visits the messages before seq to, from the newest back, read
// from the store a page at a time, until visit returns false or the
// history starts; it reads nothing without a store that reads them.
func (s *Session) readBack(ctx context.Context, to int, visit func(provider.Message) bool) {
	pager, ok := s.opts.Recorder.(Pager)
	if !ok {
		return
	}
	for n := 32; to > 0; to, n = max(0, to-n), min(2*n, 1024) {
		page, err := pager.Messages(ctx, s.id, max(0, to-n), to)
		if err != nil {
			return
		}
		for i := len(page) - 1; i >= 0; i-- {
			if !visit(page[i].Message) {
				return
			}
		}
	}
}

// askedBefore is the user's last prompt before Base, notes left out,
// read from the store; "" when there is none.
func (s *Session) askedBefore(ctx context.Context) string {
	asked := ""
	s.readBack(ctx, s.win.Base, func(m provider.Message) bool {
		if m.Role == "user" && !prompts.IsNote(m.Content) {
			asked = m.Content
		}
		return asked == ""
	})
	return asked
}

// keptMode notes the mode record just saved among the session's records:
// the store keeps one a seq, the last saved.
func (s *Session) keptMode() {
	if n := len(s.modes); n > 0 && s.modes[n-1].Seq == s.modeRec.Seq {
		s.modes[n-1] = s.modeRec
		return
	}
	s.modes = append(s.modes, s.modeRec)
}

// Pages is the history for a UI that lets go of what it shows of the
// oldest turns: no message in it, every page read back from the store
// (History.Older), with the session's mode records and its compaction.
// It is nil when the session is not all saved in a store that reads
// messages back, or while an operation is under way.
func (s *Session) Pages() *History {
	if s.ops.begin(opPages) != nil {
		return nil
	}
	defer s.ops.end()
	pager, ok := s.opts.Recorder.(Pager)
	if !ok || !s.created || s.unsaved {
		return nil
	}
	return &History{ID: s.id, Title: s.title, Compaction: s.win.Compaction, Modes: slices.Clone(s.modes),
		Older: s.pagesOf(pager)}
}
