package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// HandlerOptions are what a Handler authorizes with.
type HandlerOptions struct {
	Name     string // the server's, as the config names it
	URL      string // the server's endpoint
	Settings Settings
	Store    Store
	// Client makes the requests to the authorization servers (never with
	// the headers the MCP server is sent).
	Client *http.Client
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Fresh leaves the kept token unused: the first request goes without
	// one, so that the server says what it wants (a login).
	Fresh bool
}

// Handler is the OAuth handler of a run: it sends the token kept for the
// server, refreshes it when it ends or the server refuses it, and, for a
// grant that needs no user, gets a new one itself. A server that needs
// the user's consent (at first, after the refresh token ended, or for
// more scopes) is a *LoginError. It is safe for concurrent use.
type Handler struct {
	o HandlerOptions

	mu     sync.Mutex
	loaded bool
	rec    *Record
	// got is the access token this handler got itself: one the server
	// refuses at once is not refreshed again and again.
	got string
}

var _ auth.OAuthHandler = (*Handler)(nil)

// NewHandler returns the handler of the server o names.
func NewHandler(o HandlerOptions) *Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	return &Handler{o: o, loaded: o.Fresh}
}

// TokenSource returns the token to send: the kept one, refreshed first
// when it ends within seconds; nil when there is none to send.
func (h *Handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.load(false); err != nil {
		return nil, err
	}
	if !h.rec.valid(h.o.Now()) && h.rec != nil && h.rec.RefreshToken != "" {
		_ = h.refresh(ctx) // a refresh that fails leaves the request without a token: the 401 says what to do
	}
	if !h.rec.valid(h.o.Now()) {
		return nil, nil
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: h.rec.AccessToken, TokenType: "Bearer"}), nil
}

// Authorize answers a 401 or a 403: it takes a token kept since, or
// refreshes the one it has, or gets one (a grant without a user), or
// says the user must log in. The request is sent again when it returns
// nil.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	header := resp.Header.Values("WWW-Authenticate")
	challenges, _ := oauthex.ParseWWWAuthenticate(header) // one that cannot be read is none
	sent, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	h.mu.Lock()
	defer h.mu.Unlock()
	if resp.StatusCode == http.StatusForbidden {
		if param(challenges, "error") != "insufficient_scope" {
			return nil // not for want of a scope: the request fails as it is
		}
		return h.stepUp(ctx, challenges, header)
	}
	if err := h.load(true); err != nil {
		return err
	}
	refused := h.got != "" && sent == h.got // the token this handler just got
	switch {
	case h.rec.valid(h.o.Now()) && h.rec.AccessToken != sent:
		return nil // a token kept since: a login, or another run's refresh
	case h.rec != nil && h.rec.RefreshToken != "" && !refused:
		if err := h.refresh(ctx); err == nil {
			return nil
		}
	}
	if h.o.Settings.machine() && !refused {
		return h.obtain(ctx, challenges, challenged(challenges))
	}
	h.remember(header, nil)
	return &LoginError{Server: h.o.Name, Expired: h.rec != nil && h.rec.AccessToken != ""}
}

// stepUp answers a 403 for want of scopes: a grant without a user asks
// for them at once; otherwise the next login will. Scopes lathe has
// already are not asked for again.
func (h *Handler) stepUp(ctx context.Context, challenges []oauthex.Challenge, header []string) error {
	if err := h.load(false); err != nil {
		return err
	}
	want := challenged(challenges)
	var had []string
	if h.rec != nil {
		had = h.rec.Scopes
	}
	switch {
	case len(want) > 0 && subset(want, had):
		return fmt.Errorf("it refuses the token even with scope %q", strings.Join(want, " "))
	case h.o.Settings.machine():
		return h.obtain(ctx, challenges, union(had, want))
	}
	h.remember(header, want)
	return &LoginError{Server: h.o.Name, Scopes: union(had, want)}
}

// load reads the kept record, once, or again when again is set (a login
// or another run may have changed it).
func (h *Handler) load(again bool) error {
	if h.loaded && !again {
		return nil
	}
	rec, err := h.o.Store.Load(h.o.Name, h.o.URL)
	if err != nil {
		return err
	}
	h.rec, h.loaded = rec, true
	return nil
}

// remember keeps the server's challenge, and the scopes it wants more
// of, for the next login.
func (h *Handler) remember(header, wanted []string) {
	if h.rec == nil {
		h.rec = &Record{URL: h.o.URL}
	}
	h.rec.Challenge = header
	h.rec.Wanted = union(h.rec.Wanted, wanted)
	_ = h.o.Store.Save(h.o.Name, h.rec) // only a hint for the login
}

// refresh trades the refresh token for a new access token, keeping both.
func (h *Handler) refresh(ctx context.Context) error {
	r := h.rec
	secret := r.ClientSecret
	if secret == "" && r.ClientID == h.o.Settings.ClientID {
		secret = h.o.Settings.ClientSecret
	}
	e := tokenEndpoint{URL: r.TokenEndpoint, Issuer: r.Issuer, Client: h.o.Client, ClientID: r.ClientID,
		ClientSecret: secret, Method: r.AuthMethod}
	if r.AuthMethod == methodJWT {
		e.Key, e.Alg, e.Now = h.o.Settings.Key, h.o.Settings.SigningAlgorithm, h.o.Now
	}
	tok, err := e.request(ctx, map[string]string{"grant_type": "refresh_token", "refresh_token": r.RefreshToken, "resource": r.Resource})
	if err != nil {
		var te *TokenError
		if errors.As(err, &te) && te.Code == "invalid_grant" {
			r.RefreshToken = "" // it ended: only a login helps
			_ = h.o.Store.Save(h.o.Name, r)
		}
		return err
	}
	h.take(tok, r.Scopes)
	return h.o.Store.Save(h.o.Name, h.rec)
}

// take keeps tok as the record's token.
func (h *Handler) take(tok *oauth2.Token, asked []string) {
	r := h.rec
	r.AccessToken, r.Expiry = tok.AccessToken, time.Time{}
	if tok.ExpiresIn > 0 {
		r.Expiry = h.o.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	if tok.RefreshToken != "" {
		r.RefreshToken = tok.RefreshToken
	}
	r.Scopes = grantedScopes(tok, asked)
	r.Wanted, r.Challenge = nil, nil
	h.got = tok.AccessToken
}
