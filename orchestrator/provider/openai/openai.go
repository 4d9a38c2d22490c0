// Package openai is lathe's model backend for OpenAI-compatible servers
// (llama.cpp's llama-server, LM Studio, vLLM, SGLang), on the official
// openai-go client and /v1/chat/completions: it streams replies, assembles
// tool calls from their deltas, asks for usage, finds the server's context
// window once, and turns the server's failures into errors a person can act
// on.
package openai

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"lathe/config"
	"lathe/orchestrator/provider"
)

// Options configure a Client.
type Options struct {
	// BaseURL is the API root the paths go under
	// ("http://127.0.0.1:8080/v1").
	BaseURL string
	// APIKey is sent as a bearer token when set. It is never logged.
	APIKey string
	// APIKeyEnv names the variable the key came from, for messages.
	APIKeyEnv string
	// HTTP is the HTTP client; nil means one without a timeout (replies
	// stream for as long as the model writes).
	HTTP *http.Client
	// Options are the sampling options sent with every request; NumCtx
	// caps the window lathe keeps the conversation in.
	Options config.Options
	// ContextLength is the server's window when it does not say (the
	// context_length setting); 0 when not configured.
	ContextLength int
	// Gather is how long a fast event stream is left to gather between
	// two reads (provider.Gather); 0 reads each event as it comes.
	Gather time.Duration
}

// Client is an OpenAI-compatible server as a provider.Provider. It is safe
// for concurrent use.
type Client struct {
	opts   Options
	base   string // BaseURL without its trailing slash
	chat   oai.ChatCompletionService
	models oai.ModelService
	http   *http.Client
	wire   provider.WireCache[oai.ChatCompletionMessageParamUnion, []oai.ChatCompletionToolUnionParam]

	mu sync.Mutex
	// probed is what the server said of itself; once it holds an answer
	// (a kind), the server is not asked again.
	probed  serverInfo
	last    lastPrompt     // the previous request, to tell silent truncation
	windows map[string]int // the windows Ollama runs the models with, as /api/ps said (kind Ollama)
}

var _ provider.Provider = (*Client)(nil)

// New returns a client of the server at opts.BaseURL. It reads nothing
// from the environment: the SDK's own OPENAI_* variables are not used.
func New(opts Options) *Client {
	hc := opts.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	base := strings.TrimRight(opts.BaseURL, "/")
	reqOpts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(hc),
		// A request that fails is reported, not sent again: a turn is
		// never started twice behind the user's back, and a host that is
		// down is passed over at once.
		option.WithMaxRetries(0),
		option.WithMiddleware(errorBodies, streamEvents(opts.Gather)),
	}
	if opts.APIKey != "" {
		reqOpts = append(reqOpts, option.WithAPIKey(opts.APIKey))
	}
	return &Client{
		opts:    opts,
		base:    base,
		chat:    oai.NewChatCompletionService(reqOpts...),
		models:  oai.NewModelService(reqOpts...),
		http:    hc,
		windows: map[string]int{},
		wire:    provider.WireCache[oai.ChatCompletionMessageParamUnion, []oai.ChatCompletionToolUnionParam]{Message: message, Tools: tools},
	}
}

// URL is the server's API root.
func (c *Client) URL() string { return c.base }

// root is the server's address without the API's /v1: where llama.cpp's
// /props and LM Studio's /api/v0 are.
func (c *Client) root() string {
	return strings.TrimSuffix(c.base, "/v1")
}

// get reads a JSON document from the server into v.
func (c *Client) get(ctx context.Context, url string, v any) error {
	return c.send(ctx, http.MethodGet, url, "", v)
}

// send makes one of lathe's own requests (discovery), with body as its
// JSON unless it is "", and reads the JSON answer into v.
func (c *Client) send(ctx context.Context, method, url, body string, v any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decodeJSON(resp, v)
}
