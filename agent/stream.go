package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/ollama/ollama/api"
)

// reply is one assistant turn gathered from the stream.
type reply struct {
	content    strings.Builder
	thinking   strings.Builder
	calls      []api.ToolCall
	done       bool
	doneReason string
	metrics    api.Metrics
	thinkLeak  bool // <think> text was taken out of the content
}

func (r *reply) addThinking(turn int, s string, emit func(Event)) {
	if s != "" {
		r.thinking.WriteString(s)
		emit(ThinkingDelta{Turn: turn, Text: s})
	}
}

func (r *reply) addContent(turn int, s string, emit func(Event)) {
	if s != "" {
		r.content.WriteString(s)
		emit(TextDelta{Turn: turn, Text: s})
	}
}

// message is the reply as it goes into the history. The calls are kept
// only when the reply completed: a call from a broken or interrupted turn
// is never run, so it must not stand in the history without a result.
func (r *reply) message() api.Message {
	m := api.Message{Role: "assistant", Content: r.content.String(), Thinking: r.thinking.String()}
	if r.done {
		m.ToolCalls = r.calls
	}
	return m
}

func (r *reply) empty() bool {
	return r.content.Len() == 0 && r.thinking.Len() == 0 && len(r.calls) == 0
}

// stream sends the conversation and gathers the reply: thinking, text and
// tool calls from every chunk, the done chunk included. The reply is only
// complete when a done:true chunk arrived; the official client returns nil
// when the connection simply drops, so that is checked here. <think> text
// in the content goes to the thinking, never to the answer.
func (s *Session) stream(ctx context.Context, turn int, emit func(Event)) (*reply, error) {
	rep := &reply{}
	var split thinkSplitter
	err := s.opts.Client.Chat(ctx, s.request(), func(r api.ChatResponse) error {
		rep.addThinking(turn, r.Message.Thinking, emit)
		content, thinking := split.feed(r.Message.Content)
		rep.addThinking(turn, thinking, emit)
		rep.addContent(turn, content, emit)
		rep.calls = append(rep.calls, r.Message.ToolCalls...)
		if r.Done {
			rep.done = true
			rep.doneReason = r.DoneReason
			rep.metrics = r.Metrics
		}
		return nil
	})
	content, thinking := split.flush()
	rep.addThinking(turn, thinking, emit)
	rep.addContent(turn, content, emit)
	if split.leaked {
		rep.thinkLeak = true
		text := strings.TrimSpace(rep.content.String())
		rep.content.Reset()
		rep.content.WriteString(text)
	}
	switch {
	case ctx.Err() != nil:
		rep.done = false
		return rep, ctx.Err()
	case err != nil:
		return rep, s.streamFailure(err)
	case !rep.done:
		return rep, failure(ErrStreamBroken, nil,
			"the reply from Ollama stopped before it was complete (the connection closed without a final message); try again")
	}
	return rep, nil
}

// streamFailure classifies an error from Chat. Errors with an HTTP status
// came before any output; the rest (an error line after output started,
// or a line that is not JSON) broke a stream that had begun.
func (s *Session) streamFailure(err error) error {
	var se api.StatusError
	var ae api.AuthorizationError
	if errors.As(err, &se) || errors.As(err, &ae) || unreachable(err) {
		return classify(err, s.opts.BaseURL, s.model.Name)
	}
	return failure(ErrStreamBroken, err, "Ollama stopped the reply with an error: %v", err)
}
