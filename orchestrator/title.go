package orchestrator

import (
	"context"
	"strings"

	"lathe/orchestrator/provider"
	"lathe/prompts"
)

// Titler returns a function that asks the model for a title for the
// conversation so far, and records it. The request is the conversation
// itself with one instruction after it, so the server evaluates little more
// than the instruction, and the next real request still finds its prefix in
// the cache. The conversation is taken now: the function may run while the
// session goes on. Nil when there is nothing to title yet, or when the
// session is busy.
func (s *Session) Titler() func(ctx context.Context) (string, error) {
	if s.ops.begin(opTitle) != nil {
		return nil
	}
	defer s.end()
	if s.length() < 2 {
		return nil
	}
	req := s.request()
	req.Messages = append(append([]provider.Message(nil), req.Messages...),
		provider.Message{Role: "user", Content: prompts.TitlePrompt()})
	side(req, 24+s.thinkBudget(512))
	p, st, id := s.opts.Provider, s.opts.Recorder, s.id
	return func(ctx context.Context) (string, error) {
		text, err := sideText(ctx, p, req)
		if err != nil {
			return "", err
		}
		title := cleanTitle(text)
		if title == "" {
			return "", nil
		}
		if st != nil {
			return title, st.SetTitle(ctx, id, title)
		}
		return title, nil
	}
}

// cleanTitle keeps the first line of a model's title, without quotes,
// markup or a final full stop, at most maxTitle runes.
func cleanTitle(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	line = strings.Trim(strings.TrimSpace(line), "\"'`*#. ")
	line = strings.TrimPrefix(line, "Title: ")
	return titleOf(line)
}
