package orchestrator

import (
	"context"
	"strings"
	"time"

	"lathe/orchestrator/provider"
)

// reply is one assistant turn gathered from the stream.
type reply struct {
	content    strings.Builder
	thinking   strings.Builder
	calls      []provider.ToolCall
	done       bool
	doneReason string
	metrics    provider.Metrics
	thinkLeak  bool               // <think> text was taken out of the content
	sent       []provider.Message // the conversation the request sent
	firstToken time.Duration      // from the request to its first token; 0 when none came
	dropped    int                // tool calls past the request's MaxToolCalls, dropped unread
	tokens     int                // chunks of text and thinking: a token each on Ollama and llama.cpp
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
func (r *reply) message() provider.Message {
	m := provider.Message{Role: "assistant", Content: r.content.String(), Thinking: r.thinking.String()}
	if r.done {
		m.ToolCalls = r.calls
	}
	return m
}

// windowFull reports whether the reply stopped because it filled a window
// of numCtx tokens (the server stops a reply there when told not to shift
// the context; lathe stops reading one that ran past it, Shifted).
func (r *reply) windowFull(numCtx int) bool {
	m := r.metrics
	return r.doneReason == "length" && (m.Shifted || m.PromptTokens > 0 && m.PromptTokens+m.CompletionTokens >= numCtx)
}

func (r *reply) empty() bool {
	return r.content.Len() == 0 && r.thinking.Len() == 0 && len(r.calls) == 0
}

// stream sends the conversation and gathers the reply: thinking, text and
// tool calls from every chunk, the done chunk included. The reply is only
// complete when a Done chunk arrived: a connection that simply drops ends
// the stream without an error, so that is checked here. <think> text in the
// content goes to the thinking, never to the answer.
func (s *Session) stream(ctx context.Context, turn int, emit func(Event)) (*reply, error) {
	req := s.request()
	if n := s.opts.Config.Limits.ToolCallsPerTurn; n > 0 {
		// The calls past the per-turn limit are not run: the first is
		// answered saying so, the rest are dropped as they come.
		req.MaxToolCalls = n + 1
	}
	rep := &reply{sent: req.Messages}
	var split thinkSplitter
	start := s.opts.Now()
	err := s.opts.Provider.Chat(ctx, req, func(c provider.Chunk) error {
		if rep.firstToken == 0 && (c.Content != "" || c.Thinking != "" || len(c.ToolCalls) > 0) {
			rep.firstToken = max(s.opts.Now().Sub(start), time.Nanosecond)
		}
		if c.Content != "" || c.Thinking != "" {
			rep.tokens++
		}
		rep.addThinking(turn, c.Thinking, emit)
		content, thinking := split.feed(c.Content)
		rep.addThinking(turn, thinking, emit)
		rep.addContent(turn, content, emit)
		rep.calls = append(rep.calls, c.ToolCalls...)
		if c.Done {
			rep.done = true
			rep.doneReason = c.DoneReason
			rep.metrics = c.Metrics
			rep.dropped += c.DroppedCalls
		}
		return nil
	})
	if extra := len(rep.calls) - req.MaxToolCalls; req.MaxToolCalls > 0 && extra > 0 {
		rep.calls, rep.dropped = rep.calls[:req.MaxToolCalls], rep.dropped+extra
	}
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
		return rep, err
	case !rep.done:
		return rep, provider.Errorf(provider.ErrStreamBroken, nil,
			"the reply from the model's server stopped before it was complete (the connection closed without a final message); try again")
	}
	return rep, nil
}
