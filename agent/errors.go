package agent

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
)

// Kinds of failure a person sees. A *Error wraps one of them; test with
// errors.Is.
var (
	ErrUnreachable     = errors.New("ollama unreachable")
	ErrModelNotFound   = errors.New("model not installed")
	ErrNoToolSupport   = errors.New("model without tool support")
	ErrNoModel         = errors.New("no suitable model installed")
	ErrContextOverflow = errors.New("context window exceeded")
	ErrStreamBroken    = errors.New("reply stream broken")
	ErrServer          = errors.New("ollama error")
)

// SuggestedModel is the model lathe suggests pulling when none fits.
const SuggestedModel = "qwen3:8b"

// Error is a failure to show a person: Msg says what failed and what to
// do, in a line or two.
type Error struct {
	Kind error
	Msg  string
	Err  error // the underlying error, if any
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is find both the kind and the cause.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

func failure(kind, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Err: cause, Msg: fmt.Sprintf(format, args...)}
}

// classify turns an error from the Ollama client into an *Error. The
// server's errors carry no codes, only a status and a message, so the few
// messages that need their own advice are recognised here and nowhere else.
func classify(err error, baseURL, model string) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if unreachable(err) {
		return failure(ErrUnreachable, err,
			"cannot reach Ollama at %s: is \"ollama serve\" running? (set OLLAMA_HOST if it listens elsewhere)", baseURL)
	}
	var se api.StatusError
	if errors.As(err, &se) {
		return statusFailure(se, baseURL, model)
	}
	var ae api.AuthorizationError
	if errors.As(err, &ae) {
		return failure(ErrServer, err, "Ollama at %s refused the request (%s): sign in with \"ollama signin\"", baseURL, ae.Status)
	}
	return failure(ErrServer, err, "Ollama failed: %v", err)
}

func statusFailure(se api.StatusError, baseURL, model string) error {
	msg := strings.TrimSpace(se.ErrorMessage)
	switch {
	case se.StatusCode == http.StatusNotFound && strings.Contains(msg, "not found") && !strings.Contains(msg, "page"):
		return failure(ErrModelNotFound, se, "model %q is not installed: run \"ollama pull %s\"", model, model)
	case strings.Contains(msg, "does not support tools"):
		return noToolSupport(model)
	case strings.Contains(msg, "exceeds the context length"):
		return failure(ErrContextOverflow, se,
			"the conversation no longer fits the model's context window: raise options.num_ctx in the config, or start a new session")
	case msg == "":
		msg = se.Status
	}
	if se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusMethodNotAllowed {
		return failure(ErrServer, se, "the server at %s does not look like Ollama (%s: %s)", baseURL, se.Status, msg)
	}
	return failure(ErrServer, se, "Ollama answered %d: %s", se.StatusCode, msg)
}

func noToolSupport(model string) *Error {
	return failure(ErrNoToolSupport, nil,
		"model %q does not support tool calling, which lathe needs: pick one that does with -m (for example \"ollama pull %s\")",
		model, SuggestedModel)
}

// unreachable reports whether err means no connection could be made.
func unreachable(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}
