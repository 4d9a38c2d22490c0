package agent

import (
	"context"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/prompts"
)

// Titler returns a function that asks the model for a title for the
// conversation so far, and records it. The request is the conversation
// itself with one instruction after it, so Ollama evaluates little more
// than the instruction, and the next real request still finds its prefix
// in the cache. The conversation is taken now: the function may run while
// the session goes on. Nil when there is nothing to title yet.
func (s *Session) Titler() func(ctx context.Context) (string, error) {
	if len(s.messages) < 3 {
		return nil
	}
	req := s.request()
	instruction, err := prompts.TitlePrompt()
	if err != nil {
		return nil
	}
	req.Messages = append(append([]api.Message(nil), req.Messages...), api.Message{Role: "user", Content: instruction})
	s.sideRequest(req, 24)
	client, st, id := s.opts.Client, s.opts.Store, s.id
	return func(ctx context.Context) (string, error) {
		text, err := sideText(ctx, client, req)
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

// Title is the session's title; empty until its first prompt.
func (s *Session) Title() string { return s.title }
