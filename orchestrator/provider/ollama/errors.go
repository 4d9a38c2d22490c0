package ollama

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider"
)

// chatFailure classifies an error from a chat. Errors with an HTTP status
// came before any output; the rest (an error line after output started,
// or a line that is not JSON) broke a stream that had begun.
func (c *Client) chatFailure(err error, model string) error {
	var se api.StatusError
	var ae api.AuthorizationError
	if errors.As(err, &se) || errors.As(err, &ae) || provider.NoConnection(err) {
		return c.classify(err, model)
	}
	return provider.Errorf(provider.ErrStreamBroken, err, "Ollama stopped the reply with an error: %v", err)
}

// classify turns an error from the Ollama client into a *provider.Error.
// The server's errors carry no codes, only a status and a message, so the
// few messages that need their own advice are recognised here and nowhere
// else.
func (c *Client) classify(err error, model string) error {
	var e *provider.Error
	if errors.As(err, &e) {
		return e
	}
	if provider.NoConnection(err) {
		return provider.Errorf(provider.ErrUnreachable, err,
			"cannot reach Ollama at %s: is \"ollama serve\" running? (set OLLAMA_HOST if it listens elsewhere)", c.base)
	}
	var se api.StatusError
	if errors.As(err, &se) {
		return c.statusFailure(se, model)
	}
	var ae api.AuthorizationError
	if errors.As(err, &ae) {
		return provider.Errorf(provider.ErrServer, err, "Ollama at %s refused the request (%s): sign in with \"ollama signin\"", c.base, ae.Status)
	}
	return provider.Errorf(provider.ErrServer, err, "Ollama failed: %v", err)
}

func (c *Client) statusFailure(se api.StatusError, model string) error {
	msg := strings.TrimSpace(se.ErrorMessage)
	switch {
	case se.StatusCode == http.StatusNotFound && strings.Contains(msg, "not found") && !strings.Contains(msg, "page") && model != "":
		return provider.Errorf(provider.ErrModelNotFound, se, "model %q is not installed: run \"ollama pull %s\"", model, model)
	case strings.Contains(msg, "does not support tools"):
		return noToolSupport(model)
	case strings.Contains(msg, "exceeds the context length") || strings.Contains(msg, "exceeds maximum context length"):
		e := provider.Errorf(provider.ErrContextOverflow, se,
			"the conversation no longer fits the model's context window: raise options.num_ctx in the config, or start a new session")
		e.Overflow = &provider.Overflow{}
		return e
	case msg == "":
		msg = se.Status
	}
	if se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusMethodNotAllowed {
		hint := ""
		switch u, err := url.Parse(c.base); {
		case strings.HasSuffix(strings.TrimRight(c.base, "/"), "/api"):
			hint = `: OLLAMA_HOST names the server, without "/api"`
		case err == nil && strings.Trim(u.Path, "/") != "":
			// http://host:port/ollama/v1: an OpenAI-compatible base URL.
			root := *u
			root.Path = ""
			hint = fmt.Sprintf(": OLLAMA_HOST names the server (%s), without a path; for an OpenAI-compatible server at %s, "+
				"use --provider openai --base-url %s", root.String(), c.base, c.base)
		}
		if !strings.HasPrefix(msg, strconv.Itoa(se.StatusCode)) {
			msg = strconv.Itoa(se.StatusCode) + " " + msg
		}
		return provider.Errorf(provider.ErrServer, se, "no Ollama API at %s (it answered %q)%s", c.base, msg, hint)
	}
	return provider.Errorf(provider.ErrServer, se, "Ollama answered %d: %s", se.StatusCode, msg)
}

func noToolSupport(model string) *provider.Error {
	return provider.Errorf(provider.ErrNoToolSupport, nil,
		"model %q does not support tool calling, which lathe needs: pick one that does with -m (for example \"ollama pull %s\")",
		model, SuggestedModel)
}
