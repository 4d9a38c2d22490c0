package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"lathe/tools/mcp/oauth"
)

// usesOAuth reports whether lathe authorizes with the server by OAuth,
// when it asks: an HTTP server with no token of its own, when there is a
// place to keep tokens.
func (m *Manager) usesOAuth(cfg Server) bool {
	if cfg.URL == "" || cfg.BearerTokenEnv != "" || m.opts.TokenDir == "" {
		return false
	}
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	return true
}

func (m *Manager) tokens() oauth.Store { return oauth.Store{Dir: m.opts.TokenDir} }

// oauthHandler is the OAuth handler of one connection to the server: it
// sends the token kept, and says when the user must log in.
func (s *server) oauthHandler() (*oauth.Handler, error) {
	set, err := s.cfg.OAuth.Resolve(s.m.opts.Getenv)
	if err != nil {
		return nil, err
	}
	return oauth.NewHandler(oauth.HandlerOptions{Name: s.name, URL: s.cfg.URL, Settings: set, Store: s.m.tokens(),
		Client: authClient()}), nil
}

// authClient makes the requests to authorization servers and identity
// providers: never with the headers the MCP server is sent.
func authClient() *http.Client { return &http.Client{Timeout: 30 * time.Second} }

// Login authorizes lathe with the HTTP server name through the user's
// browser (open opens a URL; out is told it), or, for a grant that needs
// no user, gets a token at once, and keeps what it got. It returns the
// record kept, and the file it is in.
func (m *Manager) Login(ctx context.Context, name string, open func(string) error, out io.Writer) (*oauth.Record, string, error) {
	s := m.server(name)
	switch {
	case s == nil:
		return nil, "", fmt.Errorf("no MCP server is named %q", name)
	case s.cfg.URL == "":
		return nil, "", fmt.Errorf("%s is a program lathe starts: OAuth is for HTTP servers", name)
	case !m.usesOAuth(s.cfg):
		return nil, "", fmt.Errorf("%s is sent a token of its own (bearer_token_env, or an Authorization header): it does not use OAuth", name)
	case s.cfg.Project && !m.admit(s):
		return nil, "", fmt.Errorf("%s is the project's: trust the project's MCP servers first (--trust-project-mcp)", name)
	}
	set, err := s.cfg.OAuth.Resolve(m.opts.Getenv)
	if err != nil {
		return nil, "", err
	}
	rec, err := oauth.Login(ctx, oauth.LoginOptions{
		HandlerOptions: oauth.HandlerOptions{Name: name, URL: s.cfg.URL, Settings: set, Store: m.tokens(), Client: authClient()},
		MCPClient:      &http.Client{Transport: headerTransport{headers: s.cfg.Headers, next: http.DefaultTransport}},
		Open:           open, Out: out, Version: m.opts.Version,
	})
	return rec, m.tokens().Path(name), err
}
