package orchestrator

import (
	"cmp"
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
	cut, _ := s.win.CutPoint(s.messages, 0)
	return r.compactAt(cut, false, true)
}

// NoGainError is Compact's error when the summary would take more room
// than the part of the conversation it stands for: the conversation is
// left as it was.
type NoGainError struct{ Before, After int }

func (e *NoGainError) Error() string {
	return fmt.Sprintf("nothing to gain: with its older part summarized, the conversation would take %s tokens, not fewer than the %s it takes now",
		human.Thousands(e.After), human.Thousands(e.Before))
}

// overflow is the error for a conversation the window cannot hold, with
// what does not fit and the advice that can help: a server whose shared
// KV cache filled up is to be started otherwise; lathe's own prompt and
// tools too large for the window need a larger one; a first prompt too
// long is to be shortened; a larger window helps only where the model
// and the server allow one. cause is the server's refusal, if any: its
// count is said where it gave one.
func (s *Session) overflow(ctx context.Context, cause error) error {
	ov, _ := provider.OverflowOf(cause)
	if ov.Shared {
		return provider.Errorf(provider.ErrContextOverflow, cause,
			"the server's KV cache filled up before the reply was done, even with the conversation's older part summarized: %s", ov.Advice)
	}
	n := s.model.NumCtx
	window := human.Thousands(n) + " tokens"
	larger := s.larger()
	if larger == "" && s.model.ServerWindow == 0 {
		window += ", the model's maximum"
	}
	or := ""
	if larger != "" {
		or = ", or " + larger
	}
	counted := ""
	if ov.PromptTokens > 0 {
		counted = fmt.Sprintf(" (the server counted %s tokens for the request)", human.Thousands(ov.PromptTokens))
	}
	if fixed := s.win.Fixed(s.messages); fixed > n/2 {
		advice := cmp.Or(larger, "use a model with a longer context")
		return provider.Errorf(provider.ErrContextOverflow, cause,
			"lathe's system prompt and tool schemas take about %s tokens of the model's context window (%s), which leaves too "+
				"little for the conversation%s: %s", human.Thousands(fixed), window, counted, advice)
	}
	asked, last, answered := s.tally(ctx)
	if asked <= 1 && !answered {
		return provider.Errorf(provider.ErrContextOverflow, cause,
			"the prompt alone (about %s tokens) does not fit the model's context window (%s)%s: shorten it%s",
			human.Thousands(s.win.Estimate([]provider.Message{last})), window, counted, or)
	}
	if larger == "" {
		return provider.Errorf(provider.ErrContextOverflow, cause,
			"the conversation no longer fits the model's context window (%s), even with its older part summarized%s: "+
				"start a new session (/new in the TUI), or use a model with a longer context", window, counted)
	}
	return provider.Errorf(provider.ErrContextOverflow, cause,
		"the conversation no longer fits the model's context window (%s), even with its older part summarized%s: "+
			"start a new session%s", window, counted, or)
}

// larger says how to give the model a larger window; "" when nothing
// can (Ollama's num_ctx at the model's maximum). A window the server
// fixes (llama-server's -c) is larger only on the server: options.num_ctx
// helps only below it.
func (s *Session) larger() string {
	n := s.model.NumCtx
	if w := s.model.ServerWindow; w > 0 {
		if n < w {
			return fmt.Sprintf("raise options.num_ctx in the config (the server's window is %s)", human.Thousands(w))
		}
		return s.model.Larger
	}
	switch most := s.model.ContextLength; {
	case most == 0:
		return "raise options.num_ctx in the config"
	case n < most:
		return fmt.Sprintf("raise options.num_ctx in the config (the model allows up to %s)", human.Thousands(most))
	}
	return ""
}

// recompact answers a request the server could not fit, which the
// estimate let go: the server's count, where it gave one, sets the
// density first; then the older part is summarized from a transcript,
// and the last exchange too when keeping it would leave the next request
// over the window's budget (a tool result the estimate took for smaller):
// the request that follows is always smaller than the one refused.
func (r *run) recompact(sent []provider.Message, cause error) error {
	s := r.s
	refused := s.win.Fixed(sent) + s.win.Estimate(sent[1:])
	if ov, ok := provider.OverflowOf(cause); ok && ov.PromptTokens > 0 {
		s.win.Refused(sent, ov.PromptTokens)
		refused = ov.PromptTokens
	}
	cut, ok := s.win.CutPoint(s.messages, s.win.KeepRecent(s.messages, 2))
	if !ok {
		return s.overflow(r.ctx, cause)
	}
	budget := min(int(s.opts.Config.Context.CompactAt*float64(s.model.NumCtx)), refused-1)
	if all, ok := s.win.CutAll(s.messages); ok && s.afterCut(cut) > budget {
		cut = all
	}
	return r.compactAt(cut, true, false)
}

// afterCut estimates the request that follows a compaction at cut: what
// every request takes, the summary, the user's prompt and what is kept.
func (s *Session) afterCut(cut int) int {
	return s.win.Fixed(s.messages) + s.summaryReply() + s.win.Estimate(s.messages[1+cut-s.win.Base:]) +
		s.win.Estimate([]provider.Message{{Role: "user", Content: s.lastPrompt()}})
}

// lastPrompt is the user's last prompt.
func (s *Session) lastPrompt() string {
	for i := len(s.messages) - 1; i >= 1; i-- {
		if m := s.messages[i]; m.Role == "user" && !prompts.IsNote(m.Content) {
			return m.Content
		}
	}
	return s.win.Asked
}

// tally counts the user's prompts, for overflow: how many (up to two),
// the last, and whether anything but a note came after it. It reads
// back from the newest message only as far as it must, through the
// store past those held.
func (s *Session) tally(ctx context.Context) (asked int, last provider.Message, answered bool) {
	s.walkBack(ctx, func(m provider.Message) bool {
		switch {
		case m.Role == "user" && !prompts.IsNote(m.Content):
			if asked == 0 {
				last = m
			}
			asked++
		case m.Role != "user" && asked == 0:
			answered = true
		}
		return asked < 2 && !answered
	})
	return asked, last, answered
}

// compact summarizes the older part of the conversation and moves the
// compaction point after it, keeping recent messages worth at most keep
// tokens (always the last exchange). With transcript the summary is asked
// from a transcript of the conversation in a request of its own, which
// fits where the conversation itself no longer does.
func (r *run) compact(keep int, transcript bool) error {
	cut, ok := r.s.win.CutPoint(r.s.messages, keep)
	if !ok {
		return r.s.overflow(r.ctx, nil)
	}
	return r.compactAt(cut, transcript, false)
}

// compactAt summarizes the conversation before cut and moves the
// compaction point there (see compact). With shrink, a summary that would
// not make the next request smaller is not used: a *NoGainError.
func (r *run) compactAt(cut int, transcript, shrink bool) error {
	s := r.s
	r.preCompact(r.manualCompact)
	before, from := s.win.Next(s.messages), s.win.CompactedTo()
	summary, err := r.summarize(transcript)
	if err != nil {
		return err
	}
	// The images summarized away are named, so that the model knows
	// they were there.
	summary += attachedNote(s.messages[1+from-s.win.Base : 1+cut-s.win.Base])
	was := s.win
	s.win.Compaction = &session.Compaction{Seq: cut, Summary: summary, Created: s.opts.Now()}
	s.win.Forget()
	if after := s.win.Next(s.messages); shrink && after >= before {
		s.win = was
		return &NoGainError{Before: before, After: after}
	}
	if st := s.opts.Recorder; st != nil && !r.storeErr.Load() {
		if err := st.SaveCompaction(r.storeCtx(), s.id, *s.win.Compaction); err != nil {
			r.storeFailed(err)
		}
	}
	s.dropSent()
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
		return "", s.overflow(r.ctx, err)
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
