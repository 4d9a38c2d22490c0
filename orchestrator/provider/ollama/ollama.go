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
	"strings"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"

	"lathe/config"
	"lathe/orchestrator/provider"
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
	// Gather is how long a fast reply stream is left to gather between
	// two reads (provider.Gather); 0 reads each line as it comes.
	Gather time.Duration
}

// Client is an Ollama server as a provider.Provider. It is safe for
// concurrent use.
type Client struct {
	api    *api.Client
	base   string // the URL, for messages
	opts   Options
	wire   provider.WireCache[api.Message, api.Tools]
	embeds atomic.Int64 // embedding requests made
}

var (
	_ provider.Provider = (*Client)(nil)
	_ provider.Puller   = (*Client)(nil)
)

// New returns a client of the server at opts.URL.
func New(opts Options) *Client {
	var hc http.Client
	if opts.HTTP != nil {
		hc = *opts.HTTP
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = lineTransport{base: base, gather: opts.Gather}
	return &Client{api: api.NewClient(opts.URL, &hc), base: opts.URL.String(), opts: opts,
		wire: provider.WireCache[api.Message, api.Tools]{Message: message, Tools: tools}}
}

// URL is the server's base URL.
func (c *Client) URL() string { return c.base }

// EmbedCalls is how many embedding requests the client has made: each
// has the server load the embedding model, which on a server that holds
// few models at once can take the chat model's place.
func (c *Client) EmbedCalls() int64 { return c.embeds.Load() }

// request is the wire form of req. Everything but the messages is the same
// value for every request of a session, so requests stay append-only.
//
// truncate:false makes a prompt too long for the window a 400 instead of
// the server dropping its oldest messages; shift:false makes a reply that
// fills the window stop there (done_reason "length") instead of the
// server discarding the system prompt and tools to make room and going on.
func (c *Client) request(req *provider.Request) *api.ChatRequest {
	stream, truncate, shift := true, false, false
	options := c.opts.Options.Map(req.Model.NumCtx)
	if req.MaxTokens > 0 {
		options = maps.Clone(options)
		options["num_predict"] = req.MaxTokens
	}
	msgs, _ := c.wire.Messages(req.Messages)
	out := &api.ChatRequest{
		Model:     req.Model.Name,
		Messages:  msgs,
		Stream:    &stream,
		Tools:     c.wire.ToolsFor(req.Tools),
		Options:   options,
		KeepAlive: &api.Duration{Duration: c.opts.KeepAlive},
		Truncate:  &truncate,
		Shift:     &shift,
		Format:    req.Format,
	}
	if req.Think != nil {
		out.Think = &api.ThinkValue{Value: *req.Think}
	}
	return out
}

// repeatStop is how many times in a row Ollama lets a model write the same
// token (spaces around it ignored) before it ends the reply, silently: the
// stream stops without its done line, as when the connection breaks.
const repeatStop = 30

// Chat implements provider.Provider. A stream that ends without its done
// line is a failure, not an answer: the official client returns nil when
// the connection simply closes. When its last tokens were one token over
// and over, it was the server's guard against a looping model.
func (c *Client) Chat(ctx context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	done := false
	// The last token, trimmed, and how many times in a row it came; as in
	// the server's guard, the run starts from an empty token.
	last, run := "", 1
	note := streamNote{cached: -1}
	err := c.api.Chat(withNote(ctx, &note), c.request(req), func(r api.ChatResponse) error {
		done = done || r.Done
		if tok := r.Message.Content + r.Message.Thinking; tok != "" {
			if t := strings.TrimSpace(tok); t == last {
				run++
			} else {
				last, run = t, 1
			}
		}
		ch := chunk(r)
		if r.Done && note.cached >= 0 {
			ch.Metrics.CachedTokens, ch.Metrics.CachedReported = note.cached, true
		}
		return fn(ch)
	})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return c.chatFailure(err, req.Model.Name)
	case !done && note.tooLong:
		return provider.Errorf(provider.ErrStreamBroken, nil,
			"the reply from Ollama stopped: one of its lines was longer than %d MB, the most lathe reads", maxLine/1_000_000)
	case !done && run > repeatStop:
		return provider.Errorf(provider.ErrRepeating, nil,
			"the model kept repeating itself: Ollama stopped its reply after the same token came %d times in a row (rephrase the request, or try another model)", run)
	case !done:
		return provider.Errorf(provider.ErrStreamBroken, nil,
			"the reply from Ollama stopped before it was complete (the connection closed without a final message); try again")
	}
	return nil
}
