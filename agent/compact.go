package agent

import (
	"context"
	"errors"
	"strings"

	"lathe/prompts"
	"lathe/provider"
	"lathe/session"
)

// maybeCompact compacts when the next request would fill more of the
// window than the config allows.
func (r *run) maybeCompact() error {
	if !r.s.win.Full(r.s.messages) {
		return nil
	}
	return r.compact(r.s.win.KeepRecent(1), false)
}

// Compact summarizes the conversation now, but for its last exchange
// (/compact).
func (s *Session) Compact(ctx context.Context, emit func(Event)) error {
	if err := s.ops.begin(opCompact); err != nil {
		return err
	}
	defer s.end()
	if _, err := s.prepare(ctx); err != nil {
		return err
	}
	r := &run{s: s, ctx: ctx, emit: emit, start: s.opts.Now()}
	return r.compact(0, false)
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
		return provider.Errorf(provider.ErrContextOverflow, nil, "the conversation no longer fits the model's context window (num_ctx %d), "+
			"even with its older part summarized: raise options.num_ctx, or start a new session", s.model.NumCtx)
	}
	before, from := s.win.Next(s.messages), s.win.CompactedTo()
	summary, err := r.summarize(transcript)
	if err != nil {
		return err
	}
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
// own.
func (r *run) summarize(transcript bool) (string, error) {
	s := r.s
	words := s.win.SummaryWords()
	instruction, err := prompts.CompactPrompt(words)
	if err != nil {
		return "", err
	}
	req := s.request()
	if transcript {
		req.Messages = []provider.Message{{Role: "system", Content: instruction}, {Role: "user", Content: s.win.Transcript(s.messages)}}
		req.Tools = nil
	} else {
		req.Messages = append(append([]provider.Message(nil), req.Messages...), provider.Message{Role: "user", Content: instruction})
	}
	summary, err := r.ask(req, words*2)
	switch {
	case errors.Is(err, provider.ErrContextOverflow) && !transcript:
		return r.summarize(true)
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

// side makes req a side request: no thinking, and a cap on the output.
// The rest is the conversation's own request, so that the model is not
// reloaded and the server's cache of the conversation serves it.
func side(req *provider.Request, maxTokens int) {
	off := false
	req.Think = &off
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
