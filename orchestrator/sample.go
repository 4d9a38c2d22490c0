package orchestrator

import (
	"context"
	"strings"

	"lathe/orchestrator/provider"
)

// Reply is a model's answer to a request made apart from a session's
// conversation: its text, without the thinking a model may leave in it,
// the calls it made, and why it stopped ("stop", "length").
type Reply struct {
	Text       string
	ToolCalls  []provider.ToolCall
	DoneReason string
}

// Answer sends req, a request of its own (an MCP server's sampling), and
// returns the model's reply.
func Answer(ctx context.Context, p provider.Provider, req *provider.Request) (Reply, error) {
	var r Reply
	var text strings.Builder
	var split thinkSplitter
	err := p.Chat(ctx, req, func(c provider.Chunk) error {
		content, _ := split.feed(c.Content)
		text.WriteString(content)
		r.ToolCalls = append(r.ToolCalls, c.ToolCalls...)
		if c.Done {
			r.DoneReason = c.DoneReason
		}
		return nil
	})
	if err != nil {
		return Reply{}, err
	}
	content, _ := split.flush()
	text.WriteString(content)
	r.Text = strings.TrimSpace(text.String())
	return r, nil
}
