package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/prompts/human"
)

// maybeCompact compacts when the next request would fill more of the
// window than the config allows, or leave no room to summarize in place.
func (r *run) maybeCompact() error {
	s := r.s
	if !s.win.Full(s.messages, s.summaryRoom()) {
		return nil
	}
	return r.compact(s.win.KeepRecent(s.messages, 1), false)
}

// thinkBudget is how many tokens a side request may spend thinking, when
// the model thinks, on top of its answer: at most an eighth of the window.
func (s *Session) thinkBudget(most int) int {
	if !s.thinking() {
		return 0
	}
	return min(most, s.model.NumCtx/8)
}

// summaryReply is the most a summary may take, thinking included.
func (s *Session) summaryReply() int {
	return s.win.SummaryWords()*2 + s.thinkBudget(2048)
}

// summaryRoom is what a summary request adds to the conversation: its
// instruction and its reply, in tokens.
func (s *Session) summaryRoom() int {
	instruction, _ := prompts.CompactPrompt(s.win.SummaryWords())
	return s.win.Estimate([]provider.Message{{Role: "user", Content: instruction}}) + s.summaryReply()
}

// ErrNothingToCompact is Compact's error for a conversation with nothing
// before its last message to summarize.
var ErrNothingToCompact = errors.New("nothing to compact yet: the conversation has no older part to summarize")

// Compact summarizes the conversation now, but for its last message
// (/compact).
func (s *Session) Compact(ctx context.Context, emit func(Event)) error {
	if err := s.ops.begin(opCompact); err != nil {
		return err
	}
	defer s.end()
	if _, err := s.prepare(ctx); err != nil {
		return err
	}
	if _, ok := s.win.CutPoint(s.messages, 0); !ok {
		return ErrNothingToCompact
	}
	r := &run{s: s, ctx: ctx, emit: emit, start: s.opts.Now(), manualCompact: true}
	return r.compact(0, false)
}

// overflow is the error for a conversation the window cannot hold, with
// the advice that can help: a first prompt too long is to be shortened;
// a larger window helps only where the model allows one.
func (s *Session) overflow(cause error) error {
	n, most := s.model.NumCtx, s.model.ContextLength
	atMost := most > 0 && n >= most
	window := human.Thousands(n) + " tokens"
	if atMost {
		window += ", the model's maximum"
	}
	raise := ""
	if !atMost {
		raise = fmt.Sprintf(", or raise options.num_ctx in the config (the model allows up to %s)", human.Thousands(most))
		if most == 0 {
			raise = ", or raise options.num_ctx in the config"
		}
	}
	asked := 0 // the user's prompts
	var last provider.Message
	for _, m := range s.messages[1:] {
		if m.Role == "user" && !prompts.IsNote(m.Content) {
			asked++
			last = m
		}
	}
	if asked <= 1 {
		return provider.Errorf(provider.ErrContextOverflow, cause,
			"the prompt alone (about %s tokens) does not fit the model's context window (%s): shorten it%s",
			human.Thousands(s.win.Estimate([]provider.Message{last})), window, raise)
	}
	if atMost {
		return provider.Errorf(provider.ErrContextOverflow, cause,
			"the conversation no longer fits the model's context window (%s), even with its older part summarized: "+
				"start a new session (/new in the TUI), or use a model with a longer context", window)
	}
	return provider.Errorf(provider.ErrContextOverflow, cause,
		"the conversation no longer fits the model's context window (%s), even with its older part summarized: "+
			"start a new session%s", window, raise)
}

// compact summarizes the older part of the conversation and moves the
// compaction point after it, keeping recent messages worth at most keep
// tokens (always the last exchange). With transcript the summary is asked
// from a transcript of the conversation in a request of its own, which
// fits where the conversation itself no longer does.
func (r *run) compact(keep int, transcript bool) error {
	s := r.s
	cut, ok := s.win.CutPoint(s.messages, keep)
	if !ok {
		return s.overflow(nil)
	}
	r.preCompact(r.manualCompact)
	before, from := s.win.Next(s.messages), s.win.CompactedTo()
	summary, err := r.summarize(transcript)
	if err != nil {
		return err
	}
	// The images summarized away are named, so that the model knows
	// they were there.
	summary += attachedNote(s.messages[1+from : 1+cut])
	s.win.Compaction = &session.Compaction{Seq: cut, Summary: summary, Created: s.opts.Now()}
	s.win.Forget()
	if st := s.opts.Recorder; st != nil && !r.storeErr.Load() {
		if err := st.SaveCompaction(r.storeCtx(), s.id, *s.win.Compaction); err != nil {
			r.storeFailed(err)
		}
	}
	ev := Compacted{Summarized: cut - from, Before: before, After: s.win.Next(s.messages)}
	s.opts.Log.Debug().Int("summarized", ev.Summarized).Int("tokens_before", ev.Before).Int("tokens_after", ev.After).
		Bool("from_transcript", transcript).Msg("conversation compacted")
	r.emit(ev)
	return nil
}

// summarize asks the model for a summary of the conversation: by
// appending the instruction to the conversation itself, which the server
// mostly has in its cache, or from a transcript of it in a request of its
// own, sized to fit the window with the instruction and the reply; that
// is also the way when the conversation leaves no room for them.
func (r *run) summarize(transcript bool) (string, error) {
	s := r.s
	words := s.win.SummaryWords()
	instruction, err := prompts.CompactPrompt(words)
	if err != nil {
		return "", err
	}
	if !transcript && s.win.Next(s.messages)+s.summaryRoom() > s.model.NumCtx {
		transcript = true
	}
	req := s.request()
	if transcript {
		system := []provider.Message{{Role: "system", Content: instruction}}
		room := s.model.NumCtx - s.win.Estimate(system) - s.summaryReply() - 16
		req.Messages = append(system, provider.Message{Role: "user", Content: s.win.Transcript(s.messages, room)})
		req.Tools = nil
	} else {
		req.Messages = append(append([]provider.Message(nil), req.Messages...), provider.Message{Role: "user", Content: instruction})
	}
	summary, err := r.ask(req, s.summaryReply())
	switch {
	case errors.Is(err, provider.ErrContextOverflow) && !transcript:
		return r.summarize(true)
	case errors.Is(err, provider.ErrContextOverflow):
		return "", s.overflow(err)
	case err != nil:
		return "", err
	case summary == "" && !transcript:
		return r.summarize(true)
	case summary == "":
		return "", provider.Errorf(provider.ErrContextOverflow, nil, "the model gave no summary of the conversation, which no longer fits its context window: start a new session")
	}
	return summary, nil
}

// ask sends a side request and returns its text (see sideText).
func (r *run) ask(req *provider.Request, maxTokens int) (string, error) {
	side(req, maxTokens)
	return sideText(r.ctx, r.s.opts.Provider, req)
}

// side makes req a side request: a cap on the output. The rest, think
// included, is the conversation's own request, so that the model is not
// reloaded and the server's cache of the conversation serves it; the
// thinking is left out of the answer.
func side(req *provider.Request, maxTokens int) {
	req.MaxTokens = maxTokens
}

// sideText sends a side request and returns its text, thinking and tool
// calls ignored.
func sideText(ctx context.Context, p provider.Provider, req *provider.Request) (string, error) {
	var text strings.Builder
	var split thinkSplitter
	err := p.Chat(ctx, req, func(c provider.Chunk) error {
		content, _ := split.feed(c.Content)
		text.WriteString(content)
		return nil
	})
	if err != nil {
		return "", err
	}
	content, _ := split.flush()
	text.WriteString(content)
	return strings.TrimSpace(text.String()), nil
}
