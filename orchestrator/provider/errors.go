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
