package mcp

import (
	"cmp"
	"time"

	"lathe/tools/mcp/oauth"
)

// Server is one MCP server as a Manager is given it: how to reach it, and
// what of it to offer.
type Server struct {
	// Command, with Args, starts a stdio server, in Cwd (relative to
	// Options.Dir; empty is Options.Dir), with Env on top of
	// Options.Environ.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL is the endpoint of a streamable HTTP server. Headers go with
	// every request, and the token in the variable BearerTokenEnv names as
	// "Authorization: Bearer ...".
	URL            string
	Headers        map[string]string
	BearerTokenEnv string
	// OAuth is how lathe authorizes with an HTTP server that has no
	// token of its own (BearerTokenEnv, an Authorization header), when
	// it asks.
	OAuth oauth.Config
	// Off keeps the server from starting.
	Off bool
	// Tools are the only tools offered, by the server's own names; empty
	// offers all.
	Tools []string
	// Timeout bounds one call; zero means DefaultCallTimeout.
	Timeout time.Duration
	// Preapproved: the user's own config approves every call of the
	// server's tools.
	Preapproved bool
	// IgnoreReadOnly: none of the server's tools counts as read-only,
	// whatever its readOnlyHint says.
	IgnoreReadOnly bool
	// Project: the project declared the server, which starts only once the
	// user trusts the project's servers.
	Project bool
	// Elicitation is how the server's requests for the user's input are
	// answered: PolicyAsk (the default), PolicyAccept (a form with its
	// defaults) or PolicyDecline.
	Elicitation string
	// Sampling is whether the model answers the server's messages:
	// PolicyAsk (the default), PolicyAllow or PolicyDeny.
	Sampling string
}

func (s Server) elicitation() string { return cmp.Or(s.Elicitation, PolicyAsk) }
func (s Server) sampling() string    { return cmp.Or(s.Sampling, PolicyAsk) }

// DefaultCallTimeout bounds a call of a server that sets no timeout.
const DefaultCallTimeout = 60 * time.Second

// callTimeout is the time limit of one call.
func (s Server) callTimeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultCallTimeout
}

// transport is "stdio" or "http".
func (s Server) transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}
