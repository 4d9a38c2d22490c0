package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/prompts"
	"lathe/tools"
)

// estimate is a rough token count of messages: four bytes a token, and a
// few tokens of framing each.
func estimate(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += 8 + (len(m.Content)+len(m.Thinking)+3)/4
		for _, c := range m.ToolCalls {
			n += 8 + (len(c.Function.Name)+len(c.Function.Arguments.String())+3)/4
		}
	}
	return n
}

// nextTokens is how many tokens the next request takes: what Ollama
// counted for the last reply (prompt and output), plus an estimate of what
// was appended since; an estimate of it all when nothing was counted yet.
func (s *Session) nextTokens() int {
	if s.usedAt == 0 {
		return estimate(s.view()) + s.overhead()
	}
	return s.used + estimate(s.messages[s.usedAt:])
}

// overhead estimates the tool schemas, sent with every request.
func (s *Session) overhead() int { return s.toolsTokens }

// counted takes Ollama's count after a reply: the whole prompt (cached
// tokens included) plus what it generated.
func (s *Session) counted(m api.Metrics) {
	if m.PromptEvalCount > 0 {
		s.used, s.usedAt = m.PromptEvalCount+m.EvalCount, len(s.messages)
	}
}

// view is the conversation as requests send it: the system prompt, then,
// once compacted, the summary of what came before the compaction point
// merged with the prompt that follows it, then the messages after it.
// Between compactions it only grows, so requests stay append-only.
func (s *Session) view() []api.Message {
	c := s.compaction
	if c == nil {
		return s.messages
	}
	rest := s.messages[1+c.Seq:]
	first := api.Message{Role: "user", Content: prompts.SummaryHeader + "\n" + c.Summary}
	switch {
	case len(rest) > 0 && rest[0].Role == "user":
		first.Content += "\n\n" + rest[0].Content
		first.Images = rest[0].Images
		rest = rest[1:]
	case s.promptBefore(c.Seq) != "":
		first.Content += "\n\n" + prompts.CurrentRequest + "\n" + s.promptBefore(c.Seq)
	}
	out := make([]api.Message, 0, 2+len(rest))
	return append(append(out, s.messages[0], first), rest...)
}

// promptBefore is the user's last prompt before seq: the request a
// compaction in the middle of a run must keep word for word.
func (s *Session) promptBefore(seq int) string {
	for i := seq; i >= 1; i-- {
		if m := s.messages[i]; m.Role == "user" && !IsNote(m) {
			return m.Content
		}
	}
	return ""
}

// maybeCompact compacts when the next request would fill more of the
// window than the config allows.
func (r *run) maybeCompact() error {
	s := r.s
	limit := int(s.opts.Config.Context.CompactAt * float64(s.model.NumCtx))
	if s.nextTokens() <= limit {
		return nil
	}
	return r.compact(s.keepRecent(1), false)
}

// keepRecent is how many tokens the recent messages kept after a summary
// may take, divided by div.
func (s *Session) keepRecent(div float64) int {
	return int(s.opts.Config.Context.KeepRecent * float64(s.model.NumCtx) / div)
}

// Compact summarizes the conversation now, but for its last exchange
// (/compact). It must not run during Run.
func (s *Session) Compact(ctx context.Context, emit func(Event)) error {
	if _, err := s.Prepare(ctx); err != nil {
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
	cut, ok := s.cutPoint(keep)
	if !ok {
		return failure(ErrContextOverflow, nil, "the conversation no longer fits the model's context window (num_ctx %d), "+
			"even with its older part summarized: raise options.num_ctx, or start a new session", s.model.NumCtx)
	}
	before, from := s.nextTokens(), s.compactedTo()
	summary, err := r.summarize(transcript)
	if err != nil {
		return err
	}
	s.compaction = &Compaction{Seq: cut, Summary: summary, Created: s.opts.Now()}
	s.used, s.usedAt = 0, 0
	if st := s.opts.Store; st != nil && !r.storeErr.Load() {
		if err := st.SaveCompaction(r.storeCtx(), s.id, *s.compaction); err != nil {
			r.storeFailed(err)
		}
	}
	ev := Compacted{Summarized: cut - from, Before: before, After: s.nextTokens()}
	s.opts.Log.Debug().Int("summarized", ev.Summarized).Int("tokens_before", ev.Before).Int("tokens_after", ev.After).
		Bool("from_transcript", transcript).Msg("conversation compacted")
	r.emit(ev)
	return nil
}

// compactedTo is the seq of the current compaction point; 0 for none.
func (s *Session) compactedTo() int {
	if s.compaction == nil {
		return 0
	}
	return s.compaction.Seq
}

// cutPoint chooses the new compaction point: the earliest message after
// which the messages take at most budget tokens, where a round starts (a
// prompt or a reply, never between a reply and the results of its calls),
// and after the current point, so that it always moves forward.
func (s *Session) cutPoint(budget int) (int, bool) {
	msgs := s.messages[1:]
	from := s.compactedTo()
	cut, total := -1, 0
	for i := len(msgs) - 1; i > from; i-- {
		total += estimate(msgs[i : i+1])
		if msgs[i].Role == "tool" {
			continue
		}
		if total > budget && cut >= 0 {
			break
		}
		cut = i
	}
	return cut, cut > from
}

// summarize asks the model for a summary of the conversation: by
// appending the instruction to the conversation itself, which Ollama
// mostly has in its cache, or from a transcript of it in a request of its
// own.
func (r *run) summarize(transcript bool) (string, error) {
	s := r.s
	words := max(150, min(600, s.model.NumCtx/40))
	instruction, err := prompts.CompactPrompt(words)
	if err != nil {
		return "", err
	}
	req := s.request()
	if transcript {
		req.Messages = []api.Message{{Role: "system", Content: instruction}, {Role: "user", Content: s.transcript()}}
		req.Tools = nil
	} else {
		req.Messages = append(append([]api.Message(nil), s.view()...), api.Message{Role: "user", Content: instruction})
	}
	summary, err := r.ask(req, words*2)
	switch {
	case errors.Is(err, ErrContextOverflow) && !transcript:
		return r.summarize(true)
	case err != nil:
		return "", err
	case summary == "" && !transcript:
		return r.summarize(true)
	case summary == "":
		return "", failure(ErrContextOverflow, nil, "the model gave no summary of the conversation, which no longer fits its context window: start a new session")
	}
	return summary, nil
}

// transcript writes the conversation as text for a summary request of its
// own, cut from the front to fit half the window.
func (s *Session) transcript() string {
	var b strings.Builder
	if c := s.compaction; c != nil {
		b.WriteString("Summary so far:\n" + c.Summary + "\n\n")
	}
	for _, m := range s.messages[1+s.compactedTo():] {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "%s called %s %s\n", m.Role, c.Function.Name, c.Function.Arguments.String())
		}
	}
	return tools.Cap(b.String(), s.model.NumCtx*4/2)
}

// ask sends a side request and returns its text (see sideText).
func (r *run) ask(req *api.ChatRequest, maxTokens int) (string, error) {
	r.s.sideRequest(req, maxTokens)
	text, err := sideText(r.ctx, r.s.opts.Client, req)
	if err != nil {
		return "", r.s.streamFailure(err)
	}
	return text, nil
}

// sideRequest makes req a side request: no thinking, and the session's
// options (so the model is not reloaded) with a cap on the output.
func (s *Session) sideRequest(req *api.ChatRequest, maxTokens int) {
	off := false
	req.Think = &api.ThinkValue{Value: off}
	req.Options = maps.Clone(s.options)
	if req.Options == nil {
		req.Options = map[string]any{}
	}
	req.Options["num_predict"] = maxTokens
}

// sideText sends a side request and returns its text, thinking and tool
// calls ignored.
func sideText(ctx context.Context, client Client, req *api.ChatRequest) (string, error) {
	var text strings.Builder
	var split thinkSplitter
	err := client.Chat(ctx, req, func(c api.ChatResponse) error {
		content, _ := split.feed(c.Message.Content)
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

// cutResult cuts a tool result that would take more than its share of the
// window, with a note on how to read the rest.
func (s *Session) cutResult(content string) string {
	limit := int(s.opts.Config.Context.ToolResult*float64(s.model.NumCtx)) * 4
	if len(content) <= limit {
		return content
	}
	return tools.Cap(content, limit) + fmt.Sprintf("\n\nnote: this result was cut to fit the context window: it had %d bytes. "+
		"Read the rest in parts: read_file with offset and limit, or grep for what you need.", len(content))
}
