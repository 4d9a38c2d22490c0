package provider

import (
	"errors"
	"fmt"
	"net"
)

// Kinds of failure a person sees. An *Error wraps one of them; test with
// errors.Is.
var (
	ErrUnreachable     = errors.New("server unreachable")
	ErrModelNotFound   = errors.New("model not installed")
	ErrNoToolSupport   = errors.New("model without tool support")
	ErrNoVision        = errors.New("model without vision")
	ErrNoModel         = errors.New("no suitable model installed")
	ErrContextOverflow = errors.New("context window exceeded")
	ErrStreamBroken    = errors.New("reply stream broken")
	ErrRepeating       = errors.New("model repeating itself")
	ErrServer          = errors.New("server error")
)

// Error is a failure to show a person: Msg says what failed and what to
// do, in a line or two.
type Error struct {
	Kind error
	Msg  string
	Err  error // the underlying error, if any
	// Overflow is what the server said of a request too long for its
	// window, with kind ErrContextOverflow; nil otherwise.
	Overflow *Overflow
}

// Overflow is what a server said of a request it could not fit in its
// window.
type Overflow struct {
	// PromptTokens is the request's length as the server counted it, and
	// Window the window it counted against; 0 when it did not say.
	PromptTokens, Window int
	// Shared reports that the server's KV cache, which the requests it
	// runs at once share, filled up: the room this request was told it
	// had went to others (llama-server's slots, by default).
	Shared bool
	// Advice says what to do about the server's window: what lathe's
	// messages add to "start a new session".
	Advice string
}

// OverflowOf is the Overflow err carries, if any.
func OverflowOf(err error) (Overflow, bool) {
	var e *Error
	if errors.As(err, &e) && e.Overflow != nil {
		return *e.Overflow, true
	}
	return Overflow{}, false
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is find both the kind and the cause.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// Errorf returns an *Error of kind, caused by cause (which may be nil).
func Errorf(kind, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Err: cause, Msg: fmt.Sprintf(format, args...)}
}

// NoConnection reports whether err means no connection could be made to
// the server (refused, unknown host): a request that never reached it.
func NoConnection(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}
