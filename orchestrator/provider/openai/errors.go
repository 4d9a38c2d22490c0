package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"lathe/orchestrator/provider"
)

// maxErrorBody is the most of an error answer lathe reads.
const maxErrorBody = 1 << 20

// errorBodies gives every error answer the shape the client reads,
// {"error":{"message":...,"type":...,"code":status}}: servers write their
// errors in several (llama.cpp and newer vLLM that one; older vLLM
// {"object":"error","message":...} at the top; FastAPI {"detail":...};
// some {"error":"text"} or plain text), and the client would otherwise
// fail to read the ones it does not expect.
func errorBodies(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	msg, typ := errorText(body, resp.Status)
	norm, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": resp.StatusCode}})
	resp.Body = io.NopCloser(bytes.NewReader(norm))
	resp.ContentLength = int64(len(norm))
	resp.Header.Set("Content-Type", "application/json")
	return resp, nil
}

// errorText reads the message and type of an error body, in any of the
// shapes servers write.
func errorText(body []byte, status string) (msg, typ string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message, inner.Type
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s, ""
		case v.Message != "":
			return v.Message, v.Type
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return s, ""
		case len(v.Detail) > 0:
			return string(v.Detail), ""
		}
	}
	if t := strings.TrimSpace(string(body)); t != "" && len(t) < 500 {
		return t, ""
	}
	return status, ""
}

// statusError is an error answer to one of lathe's own GET requests.
type statusError struct {
	Status int
	Msg    string
}

func (e *statusError) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Msg) }

// decodeJSON reads resp's JSON body into v, or its error.
func decodeJSON(resp *http.Response, v any) error {
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		msg, _ := errorText(body, resp.Status)
		return &statusError{Status: resp.StatusCode, Msg: msg}
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(v)
}

// overflowText matches the messages servers give a prompt longer than
// their window: llama.cpp ("request (9412 tokens) exceeds the available
// context size (8192 tokens)", type exceed_context_size_error), vLLM and
// OpenAI ("This model's maximum context length is 4096 tokens..."),
// SGLang ("The input (5000 tokens) is longer than the model's context
// length"), LM Studio ("...greater than the context length").
var overflowText = regexp.MustCompile(`(?i)exceed_context_size|context_length_exceeded|exceeds? the (available|maximum) context|maximum context length|longer than the model's context length|greater than the context length|context (length|window) (exceeded|is too small)|exceeds the maximum allowed length`)

// kvFull matches llama.cpp's error for a KV cache with no room left
// ("Context size has been exceeded.", a server_error 500, before any
// output or in the stream). Its default slots share one cache of -c
// tokens, each told it has all of it: requests running at once fill it
// before any of them reaches its own window.
var kvFull = regexp.MustCompile(`(?i)context size has been exceeded|failed to find free space in the KV cache`)

// tokenCount finds the counts in a server's overflow message: "request
// (4487 tokens) exceeds the available context size (4096 tokens)",
// "maximum context length is 4096 tokens. However, your request has 9000
// input tokens", "The input (5000 tokens) is longer than the model's
// context length (4096 tokens)".
var tokenCount = regexp.MustCompile(`\b(\d+) (?:input )?tokens\b`)

// counts are the request's length and the window an overflow message
// gives: the larger count is the request, the smaller the window; zeros
// when it gives fewer than two.
func counts(msg string) (prompt, window int) {
	var ns []int
	for _, m := range tokenCount.FindAllStringSubmatch(msg, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			ns = append(ns, n)
		}
	}
	if len(ns) < 2 || slices.Max(ns) == slices.Min(ns) {
		return 0, 0
	}
	return slices.Max(ns), slices.Min(ns)
}

// chatFailure classifies a failed chat. Errors with an HTTP status came
// before any output; the rest broke a stream that had begun (started) or
// never reached the server.
func (c *Client) chatFailure(err error, model string, started bool) error {
	var ae *oai.Error
	var se *ssestream.StreamError
	switch {
	case errors.As(err, &ae):
		return c.statusFailure(ae.StatusCode, ae.Message, ae.Type, model, err)
	case errors.As(err, &se):
		if overflowText.MatchString(se.Message) || kvFull.MatchString(se.Message) {
			return c.overflow(err, se.Message)
		}
		return provider.Errorf(provider.ErrStreamBroken, err, "the server stopped the reply with an error: %s",
			strings.TrimPrefix(se.Message, "received error while streaming: "))
	case !started && provider.NoConnection(err):
		return c.unreachable(err)
	case !started:
		return provider.Errorf(provider.ErrServer, err, "the request to %s failed: %v", c.base, err)
	}
	return provider.Errorf(provider.ErrStreamBroken, err, "the reply from %s broke off (%v); try again", c.base, err)
}

func (c *Client) unreachable(err error) error {
	return provider.Errorf(provider.ErrUnreachable, err,
		"cannot reach the server at %s: is it running? (base_url in your config, or --base-url, names it)", c.base)
}

// sharedKV is the advice for llama.cpp's shared KV cache filling up.
const sharedKV = "llama-server's slots (-np, 4 by default) share one KV cache of -c tokens, and requests running at " +
	"once filled it: start llama-server with --no-kv-unified, so that each slot has its window (-c divided by -np) " +
	"to itself, which lathe keeps within, or with -np 1 for lathe alone"

// overflow is the error for a request the server could not fit, msg
// being what it said.
func (c *Client) overflow(err error, msg string) error {
	kind := c.kind()
	ov := &provider.Overflow{Advice: kind.larger()}
	ov.PromptTokens, ov.Window = counts(msg)
	e := provider.Errorf(provider.ErrContextOverflow, err,
		"the conversation no longer fits the server's context window: %s, or start a new session", ov.Advice)
	if kvFull.MatchString(msg) && kind != KindLMStudio {
		ov.Shared, ov.Advice = true, sharedKV
		e.Msg = "the server's KV cache filled up before the reply was done: " + sharedKV
	}
	e.Overflow = ov
	return e
}

// statusFailure classifies an error answer. Servers give no codes lathe
// could rely on, only a status and a message: the few messages that need
// their own advice are recognised here and nowhere else.
func (c *Client) statusFailure(status int, msg, typ, model string, err error) error {
	msg = strings.TrimSpace(msg)
	lower := strings.ToLower(msg)
	switch {
	case overflowText.MatchString(msg) || overflowText.MatchString(typ) || kvFull.MatchString(msg):
		return c.overflow(err, msg)
	case strings.Contains(lower, "--jinja"):
		return provider.Errorf(provider.ErrNoToolSupport, err,
			"llama.cpp's server was started without --jinja, and its tool calling needs it: restart llama-server with --jinja")
	case strings.Contains(lower, "enable-auto-tool-choice") || strings.Contains(lower, "tool-call-parser"):
		return provider.Errorf(provider.ErrNoToolSupport, err,
			"vLLM was started without tool calling: restart it with --enable-auto-tool-choice and the model's --tool-call-parser")
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if c.opts.APIKey == "" {
			return provider.Errorf(provider.ErrServer, err,
				"the server at %s wants an API key (it answered %d: %s): put it in a variable and name that variable with api_key_env", c.base, status, msg)
		}
		return provider.Errorf(provider.ErrServer, err,
			"the server at %s refused the API key from $%s (it answered %d: %s)", c.base, c.opts.APIKeyEnv, status, msg)
	case status == http.StatusNotFound && modelMissing(lower):
		return c.modelNotFound(model, err)
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		return provider.Errorf(provider.ErrServer, err,
			"no OpenAI-compatible API at %s (it answered %d %s): base_url is the API's root, usually ending in /v1", c.base, status, msg)
	case msg == "":
		msg = http.StatusText(status)
	}
	return provider.Errorf(provider.ErrServer, err, "the server at %s answered %d: %s", c.base, status, msg)
}

func modelMissing(lower string) bool {
	return strings.Contains(lower, "model") && (strings.Contains(lower, "not found") ||
		strings.Contains(lower, "does not exist") || strings.Contains(lower, "not loaded") || strings.Contains(lower, "no model"))
}

func (c *Client) modelNotFound(model string, err error) error {
	return provider.Errorf(provider.ErrModelNotFound, err,
		"model %q is not served at %s: load it on the server (lathe pulls models only from Ollama), or pick one it serves with -m or /model",
		model, c.base)
}

// classify turns an error of one of lathe's own requests (models,
// discovery) into a *provider.Error.
func (c *Client) classify(err error) error {
	var pe *provider.Error
	var se *statusError
	switch {
	case errors.As(err, &pe):
		return pe
	case provider.NoConnection(err):
		return c.unreachable(err)
	case errors.As(err, &se):
		return c.statusFailure(se.Status, se.Msg, "", "", err)
	}
	return c.chatFailure(err, "", false)
}
