// Package ollama is lathe's model backend for Ollama, on the official client
// and Ollama's native /api/chat: it chooses num_ctx once per model, sends it
// with truncate:false on every request, and turns the server's failures into
// errors a person can act on.
package ollama

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"time"

	"github.com/ollama/ollama/api"

	"lathe/config"
	"lathe/provider"
)

// SuggestedModel is the model lathe suggests pulling when none fits.
const SuggestedModel = "qwen3:8b"

// Options configure a Client.
type Options struct {
	// URL is the server's base URL (from OLLAMA_HOST).
	URL *url.URL
	// HTTP is the HTTP client; nil means a new one without a timeout
	// (replies stream for as long as the model writes).
	HTTP *http.Client
	// Options are the model options sent with every request; NumCtx is
	// capped at each model's trained length.
	Options config.Options
	// KeepAlive is how long Ollama keeps the model loaded after a request.
	KeepAlive time.Duration
}

// Client is an Ollama server as a provider.Provider. It is safe for
// concurrent use.
type Client struct {
	api  *api.Client
	base string // the URL, for messages
	opts Options
	wire wireCache
}

var (
	_ provider.Provider = (*Client)(nil)
	_ provider.Puller   = (*Client)(nil)
)

// New returns a client of the server at opts.URL.
func New(opts Options) *Client {
	hc := opts.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{api: api.NewClient(opts.URL, hc), base: opts.URL.String(), opts: opts}
}

// URL is the server's base URL.
func (c *Client) URL() string { return c.base }

// request is the wire form of req. Everything but the messages is the same
// value for every request of a session, so requests stay append-only.
func (c *Client) request(req *provider.Request) *api.ChatRequest {
	stream, truncate := true, false
	options := c.opts.Options.Map(req.Model.NumCtx)
	if req.MaxTokens > 0 {
		options = maps.Clone(options)
		options["num_predict"] = req.MaxTokens
	}
	out := &api.ChatRequest{
		Model:     req.Model.Name,
		Messages:  c.wire.messages(req.Messages),
		Stream:    &stream,
		Tools:     c.wire.toolsFor(req.Tools),
		Options:   options,
		KeepAlive: &api.Duration{Duration: c.opts.KeepAlive},
		Truncate:  &truncate,
		Format:    req.Format,
	}
	if req.Think != nil {
		out.Think = &api.ThinkValue{Value: *req.Think}
	}
	return out
}

// Chat implements provider.Provider. A stream that ends without its done
// line is a failure, not an answer: the official client returns nil when
// the connection simply closes.
func (c *Client) Chat(ctx context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	done := false
	err := c.api.Chat(ctx, c.request(req), func(r api.ChatResponse) error {
		done = done || r.Done
		return fn(chunk(r))
	})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return c.chatFailure(err, req.Model.Name)
	case !done:
		return provider.Errorf(provider.ErrStreamBroken, nil,
			"the reply from Ollama stopped before it was complete (the connection closed without a final message); try again")
	}
	return nil
}
