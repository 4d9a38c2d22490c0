package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// LoginOptions are what a login needs.
type LoginOptions struct {
	HandlerOptions
	// MCPClient talks to the MCP server, with the headers it is sent.
	MCPClient *http.Client
	// Open opens the authorization URL in the user's browser.
	Open func(url string) error
	// Out is told the authorization URL, always: the browser may not open.
	Out     io.Writer
	Version string
}

// loginTimeout bounds a login, the user's time in the browser included.
const loginTimeout = 10 * time.Minute

// Login authorizes lathe with the server and keeps what it got: it
// connects without a token, and answers the server's 401 (or the
// challenge a run kept) with the authorization code flow through the
// browser and a loopback redirect: PKCE, the resource indicator, the
// scopes the server asked for and those it asked more of since, a client
// ID metadata document, a registered client or dynamic registration, in
// that order. A grant without a user just gets a token. It returns the
// record kept.
func Login(ctx context.Context, o LoginOptions) (*Record, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, loginTimeout, fmt.Errorf("no answer within %s", loginTimeout))
	defer cancel()
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	if o.Settings.machine() {
		o.Fresh = true
		h := NewHandler(o.HandlerOptions)
		err := connect(ctx, o, h)
		switch {
		case h.got == "" && err == nil:
			return nil, ErrNoChallenge
		case err != nil:
			return nil, err
		}
		return h.rec, nil
	}
	return browserLogin(ctx, o)
}

// browserLogin is the authorization code flow.
func browserLogin(ctx context.Context, o LoginOptions) (*Record, error) {
	prev, err := o.Store.Load(o.Name, o.URL)
	if err != nil {
		return nil, err
	}
	lb, err := listenLoopback(o.Name)
	if err != nil {
		return nil, err
	}
	defer lb.close()
	lh := &loginHandler{o: o, prev: prev}
	cfg := lh.config(lb)
	if lh.sdk, err = auth.NewAuthorizationCodeHandler(cfg); err != nil {
		return nil, err
	}
	err = connect(ctx, o, lh)
	if lh.rec == nil && err == nil && prev != nil && len(prev.Challenge) > 0 {
		// The server let the login through: answer the challenge a run kept.
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, o.URL, nil)
		err = lh.Authorize(ctx, req, &http.Response{StatusCode: http.StatusUnauthorized,
			Header: http.Header{"Www-Authenticate": prev.Challenge}, Body: http.NoBody})
	}
	switch {
	case lh.rec != nil && err != nil:
		return lh.rec, fmt.Errorf("it refuses the new authorization: %w", err)
	case err != nil:
		return nil, err
	case lh.rec == nil:
		return nil, ErrNoChallenge
	}
	return lh.rec, nil
}

// loginHandler is the OAuth handler of a login: the SDK's authorization
// code handler, which sends no token before the server asks, and keeps
// what each authorization got.
type loginHandler struct {
	mu   sync.Mutex // one authorization at a time
	o    LoginOptions
	prev *Record
	sdk  *auth.AuthorizationCodeHandler
	rec  *Record // what the last authorization got

	lb           *loopback
	redirect     string // lb's URL
	registration *oauthex.ClientRegistrationMetadata
	legacy       oauth2.TokenSource // the token of a 2025-03-26 server's authorization

	// Of the authorization under way: the resource it asked for, and
	// the client and token it got.
	resource string
	cfg      *oauth2.Config
	tok      *oauth2.Token
}

// config is the SDK's handler's configuration.
func (l *loginHandler) config(lb *loopback) *auth.AuthorizationCodeHandlerConfig {
	set := l.o.Settings
	l.lb, l.redirect = lb, lb.redirectURL()
	l.registration = &oauthex.ClientRegistrationMetadata{
		RedirectURIs: []string{l.redirect}, ClientName: "lathe", SoftwareVersion: l.o.Version,
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: methodNone,
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:                     l.redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: l.registration},
		RequestRefreshToken:             true,
		ScopeFilter:                     l.scopes,
		Client:                          l.o.Client,
		AuthorizationCodeFetcher:        l.fetch,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			l.cfg, l.tok = c, t
			return c.TokenSource(ctx, t), nil
		},
	}
	if set.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: set.ClientMetadataURL}
	}
	if set.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: set.ClientID}
		if set.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: set.ClientSecret}
		}
	}
	return cfg
}

// fetch sends the user to the authorization URL (the browser, and the
// URL printed), and waits for the browser to come back.
func (l *loginHandler) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	if u, err := url.Parse(args.URL); err == nil {
		l.resource = u.Query().Get("resource")
	}
	fmt.Fprintf(l.o.Out, "Opening the browser to authorize lathe with %s. If it does not open, go to:\n  %s\n", l.o.Name, args.URL)
	if err := l.o.Open(args.URL); err != nil {
		fmt.Fprintf(l.o.Out, "(%v)\n", err)
	}
	return l.lb.wait(ctx)
}

// scopes are the scopes to ask for: those the server asks for now, and
// those lathe was granted and asked more of before, so that a login never
// takes access away.
func (l *loginHandler) scopes(discovered []string) []string {
	if l.prev == nil {
		return discovered
	}
	return union(union(discovered, l.prev.Scopes), l.prev.Wanted)
}

func (l *loginHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	if l.legacy != nil {
		return l.legacy, nil
	}
	return l.sdk.TokenSource(ctx)
}

// Authorize runs the flow, unless the server refuses for want of scopes
// lathe was granted already: asking again would not help.
func (l *loginHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if resp.StatusCode == http.StatusForbidden && l.rec != nil {
		challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		if want := challenged(challenges); param(challenges, "error") == "insufficient_scope" && subset(want, l.rec.Scopes) {
			_ = resp.Body.Close()
			return fmt.Errorf("it refuses the token even with scope %q", strings.Join(want, " "))
		}
	}
	l.tok = nil
	if err := l.authorize(ctx, req, resp); err != nil {
		return err
	}
	if l.tok == nil {
		return nil // a 403 not for scopes: nothing was asked
	}
	l.rec = l.record()
	return l.o.Store.Save(l.o.Name, l.rec)
}

// authorize runs the flow the server's spec has: the SDK's, unless the
// server has no protected-resource metadata (2025-03-26).
func (l *loginHandler) authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusUnauthorized || param(challenges, "error") == "insufficient_scope" {
		prm, err := protectedResource(ctx, l.o.Client, challenges, req.URL.String())
		if err != nil {
			_ = resp.Body.Close()
			return err
		}
		if prm == nil {
			return l.legacyAuthorize(ctx, resp, req.URL.String())
		}
	}
	return l.sdk.Authorize(ctx, req, resp)
}

// record is what the last authorization got, to keep.
func (l *loginHandler) record() *Record {
	c, t := l.cfg, l.tok
	r := &Record{URL: l.o.URL, Resource: l.resource, TokenEndpoint: c.Endpoint.TokenURL, ClientID: c.ClientID,
		AuthMethod: styleMethod(c.Endpoint.AuthStyle, c.ClientSecret), AccessToken: t.AccessToken,
		RefreshToken: t.RefreshToken, Expiry: t.Expiry, Scopes: grantedScopes(t, c.Scopes)}
	if c.ClientSecret != "" && c.ClientID != l.o.Settings.ClientID {
		r.ClientSecret = c.ClientSecret // registered by lathe: the config has no other copy
	}
	return r
}

// connect opens a session with the server through h, and lists its tools:
// what a run does first.
func connect(ctx context.Context, o LoginOptions, h auth.OAuthHandler) error {
	client := sdk.NewClient(&sdk.Implementation{Name: "lathe", Version: o.Version}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: o.URL, HTTPClient: o.MCPClient, OAuthHandler: h, MaxRetries: 1}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	_, err = cs.ListTools(ctx, nil)
	return err
}
