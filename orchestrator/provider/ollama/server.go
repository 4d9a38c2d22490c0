package ollama

import (
	"context"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider"
)

var _ provider.Server = (*Client)(nil)

// Version implements provider.Server.
func (c *Client) Version(ctx context.Context) (string, error) {
	v, err := c.api.Version(ctx)
	if err != nil {
		return "", c.classify(err, "")
	}
	return v, nil
}

// Loaded implements provider.Server: /api/ps.
func (c *Client) Loaded(ctx context.Context) ([]provider.Loaded, error) {
	resp, err := c.api.ListRunning(ctx)
	if err != nil {
		return nil, c.classify(err, "")
	}
	out := make([]provider.Loaded, len(resp.Models))
	for i, m := range resp.Models {
		out[i] = provider.Loaded{Name: m.Name, Size: m.Size, VRAM: m.SizeVRAM, ContextLength: m.ContextLength, Expires: m.ExpiresAt}
	}
	return out, nil
}

// Preload implements provider.Server: a chat request without messages,
// with the options and keep-alive every request of the session sends, has
// Ollama load the model (done_reason "load") and nothing else.
func (c *Client) Preload(ctx context.Context, m provider.ModelInfo) error {
	stream := false
	req := &api.ChatRequest{Model: m.Name, Messages: []api.Message{}, Stream: &stream,
		Options: c.opts.Options.Map(m.NumCtx), KeepAlive: &api.Duration{Duration: c.opts.KeepAlive}}
	err := c.api.Chat(ctx, req, func(api.ChatResponse) error { return nil })
	if err != nil {
		return c.chatFailure(err, m.Name)
	}
	return nil
}

// Served lists the installed models, each with whether it is loaded now
// (/api/tags and /api/ps).
func (c *Client) Served(ctx context.Context) (map[string]bool, error) {
	list, err := c.api.List(ctx)
	if err != nil {
		return nil, c.classify(err, "")
	}
	out := make(map[string]bool, len(list.Models))
	for _, m := range list.Models {
		out[m.Name] = false
	}
	if running, err := c.api.ListRunning(ctx); err == nil {
		for _, m := range running.Models {
			out[m.Name] = true
		}
	}
	return out, nil
}
