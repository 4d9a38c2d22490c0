// Package oauthtest is an MCP server that wants OAuth, with its
// authorization server and an identity provider, on one loopback
// listener, for testing lathe's OAuth: protected-resource and
// authorization-server metadata, dynamic client registration, the
// authorization code with PKCE (the "browser" follows the redirect at
// once), refresh, 401 and 403 challenges with scopes, client credentials
// with a secret or a JWT assertion, and the token exchange and JWT grant
// of cross-app access. It records every request it was sent.
package oauthtest

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/tools/mcp/mcptest"
)

// Options shape the servers.
type Options struct {
	// Scopes are the scopes every MCP request needs, and the protected
	// resource's scopes_supported.
	Scopes []string
	// CallScopes are the scopes a tools/call needs on top: without them
	// it is refused with 403 insufficient_scope.
	CallScopes []string
	// ClientID and ClientSecret are a client registered beforehand;
	// PublicKey, when set, verifies its JWT assertions instead.
	ClientID, ClientSecret string
	PublicKey              crypto.PublicKey
	// AuthMethods are the token_endpoint_auth_methods_supported.
	AuthMethods []string
	// NoRegistration leaves dynamic client registration out.
	NoRegistration bool
	// CIMD advertises client ID metadata documents.
	CIMD bool
	// Refresh issues refresh tokens.
	Refresh bool
	// IDToken is the ID token the identity provider exchanges.
	IDToken string
	// Open lets every MCP request through: a server that asks for nothing.
	Open bool
	// Legacy is a server of the 2025-03-26 spec: no protected-resource
	// metadata, and the authorization server's metadata at the root
	// (/.well-known/oauth-authorization-server), naming its issuer, which
	// is not the root.
	Legacy bool
	// OtherIssuer makes the authorization server's metadata name another
	// issuer than the one it is fetched for.
	OtherIssuer bool
}

// Request is one request the servers were sent.
type Request struct {
	Path   string
	Form   url.Values // the query of a GET, the form of a POST
	Auth   string     // its Authorization header
	Method string     // the JSON-RPC method, for the MCP endpoint
	Status int        // what it was answered
}

// Server is the servers.
type Server struct {
	*httptest.Server
	opts Options

	mu       sync.Mutex
	log      []Request
	n        int
	codes    map[string]grant // code → what it was issued for
	tokens   map[string][]string
	refresh  map[string][]string
	jags     map[string]bool
	clients  map[string]string // registered client → secret ("" for a public one)
	redirect map[string]string // code → redirect_uri
}

type grant struct {
	clientID, challenge, resource string
	scopes                        []string
}

// New starts the servers; Close stops them.
func New(opts Options) *Server {
	s := &Server{opts: opts, codes: map[string]grant{}, tokens: map[string][]string{}, refresh: map[string][]string{},
		jags: map[string]bool{}, clients: map[string]string{}, redirect: map[string]string{}}
	if opts.ClientID != "" {
		s.clients[opts.ClientID] = opts.ClientSecret
	}
	mcp := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.New(mcptest.Options{}) },
		&sdk.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.protect(mcp))
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.resourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server/as", s.serverMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serverMetadata)
	mux.HandleFunc("POST /as/register", s.register)
	mux.HandleFunc("GET /as/authorize", s.authorize)
	mux.HandleFunc("POST /as/token", s.token)
	mux.HandleFunc("POST /idp/token", s.exchange)
	s.Server = httptest.NewServer(mux)
	return s
}

// MCP is the MCP endpoint's URL.
func (s *Server) MCP() string { return s.URL + "/mcp" }

// Issuer is the authorization server's issuer.
func (s *Server) Issuer() string { return s.URL + "/as" }

// IdPToken is the identity provider's token endpoint.
func (s *Server) IdPToken() string { return s.URL + "/idp/token" }

// Requests returns the requests sent to path so far.
func (s *Server) Requests(path string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.log {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// Revoke makes every access token issued so far invalid.
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// Browser is the user's browser, saying yes at once: Follow.
func (s *Server) Browser(authURL string) error { return Follow(authURL) }

// Follow asks for the authorization URL and follows the redirect back to
// lathe: what a browser does when the user says yes.
func Follow(authURL string) error {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		return err
	}
	resp.Body.Close()
	back := resp.Header.Get("Location")
	if back == "" {
		return fmt.Errorf("the authorization server answered %s, without a redirect", resp.Status)
	}
	resp, err = c.Get(back)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.log = append(s.log, r)
	s.mu.Unlock()
}

func (s *Server) next(prefix string) string {
	s.n++
	return prefix + strconv.Itoa(s.n)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	if s.opts.Legacy {
		s.record(Request{Path: r.URL.Path, Status: 404})
		http.NotFound(w, r)
		return
	}
	s.record(Request{Path: r.URL.Path, Status: 200})
	writeJSON(w, 200, map[string]any{"resource": s.MCP(), "authorization_servers": []string{s.Issuer()},
		"scopes_supported": s.opts.Scopes})
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	if s.opts.Legacy != (r.URL.Path == "/.well-known/oauth-authorization-server") {
		s.record(Request{Path: r.URL.Path, Status: 404})
		http.NotFound(w, r)
		return
	}
	s.record(Request{Path: r.URL.Path, Status: 200})
	methods := s.opts.AuthMethods
	if methods == nil {
		methods = []string{"none", "client_secret_basic", "client_secret_post", "private_key_jwt"}
	}
	issuer := s.Issuer()
	if s.opts.OtherIssuer {
		issuer += "/other"
	}
	m := map[string]any{
		"issuer": issuer, "authorization_endpoint": s.Issuer() + "/authorize", "token_endpoint": s.Issuer() + "/token",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"},
		"token_endpoint_auth_methods_supported": methods,
		"scopes_supported":                      append(slices.Clone(s.opts.Scopes), "offline_access"),
	}
	if !s.opts.NoRegistration {
		m["registration_endpoint"] = s.Issuer() + "/register"
	}
	if s.opts.CIMD {
		m["client_id_metadata_document_supported"] = true
	}
	writeJSON(w, 200, m)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var meta map[string]any
	_ = json.NewDecoder(r.Body).Decode(&meta)
	form := url.Values{}
	for k, v := range meta {
		form.Set(k, fmt.Sprint(v))
	}
	s.record(Request{Path: r.URL.Path, Form: form, Status: 201})
	s.mu.Lock()
	id := s.next("client-")
	s.clients[id] = ""
	s.mu.Unlock()
	meta["client_id"] = id
	meta["token_endpoint_auth_method"] = "none"
	writeJSON(w, 201, meta)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	_, known := s.clients[q.Get("client_id")]
	known = known || s.opts.CIMD && strings.HasPrefix(q.Get("client_id"), "https://")
	code := s.next("code-")
	s.codes[code] = grant{clientID: q.Get("client_id"), challenge: q.Get("code_challenge"), resource: q.Get("resource"),
		scopes: strings.Fields(q.Get("scope"))}
	s.redirect[code] = q.Get("redirect_uri")
	s.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || !known || q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" {
		s.record(Request{Path: r.URL.Path, Form: q, Status: 400})
		http.Error(w, "bad authorization request", 400)
		return
	}
	s.record(Request{Path: r.URL.Path, Form: q, Status: 302})
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// issue answers a token request with a new access token for scopes.
func (s *Server) issue(w http.ResponseWriter, scopes []string) {
	s.mu.Lock()
	tok := s.next("access-token-")
	s.tokens[tok] = scopes
	body := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "scope": strings.Join(scopes, " ")}
	if s.opts.Refresh {
		rt := s.next("refresh-token-")
		s.refresh[rt] = scopes
		body["refresh_token"] = rt
	}
	s.mu.Unlock()
	writeJSON(w, 200, body)
}

// client authenticates the client of a token request: its id, or "" with
// why not.
func (s *Server) client(r *http.Request) (string, string) {
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		return s.secret(id, secret)
	}
	if a := r.PostForm.Get("client_assertion"); a != "" {
		if r.PostForm.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || s.opts.PublicKey == nil {
			return "", "bad client_assertion_type"
		}
		claims := &jwt.RegisteredClaims{}
		_, err := jwt.ParseWithClaims(a, claims, func(*jwt.Token) (any, error) { return s.opts.PublicKey, nil },
			jwt.WithAudience(s.Issuer()), jwt.WithIssuer(s.opts.ClientID), jwt.WithSubject(s.opts.ClientID),
			jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(time.Minute))
		if err != nil {
			return "", "client assertion: " + err.Error()
		}
		return s.opts.ClientID, ""
	}
	if secret := r.PostForm.Get("client_secret"); secret != "" {
		return s.secret(r.PostForm.Get("client_id"), secret)
	}
	id := r.PostForm.Get("client_id")
	s.mu.Lock()
	secret, known := s.clients[id]
	s.mu.Unlock()
	if known && secret == "" || s.opts.CIMD && strings.HasPrefix(id, "https://") {
		return id, ""
	}
	return "", "no client authentication"
}

func (s *Server) secret(id, secret string) (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if want, ok := s.clients[id]; !ok || want == "" || want != secret {
		return "", "bad client secret"
	}
	return id, ""
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	req := Request{Path: r.URL.Path, Form: r.PostForm, Auth: r.Header.Get("Authorization"), Status: 400}
	defer func() { s.record(req) }()
	client, why := s.client(r)
	if client == "" {
		req.Status = 401
		oauthError(w, 401, "invalid_client", why)
		return
	}
	f := r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		g, ok := s.codes[f.Get("code")]
		redirect := s.redirect[f.Get("code")]
		delete(s.codes, f.Get("code"))
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok || g.clientID != client || redirect != f.Get("redirect_uri"):
			oauthError(w, 400, "invalid_grant", "unknown code")
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			oauthError(w, 400, "invalid_grant", "PKCE verifier does not match")
		case f.Get("resource") != g.resource || g.resource != s.MCP():
			oauthError(w, 400, "invalid_target", "resource")
		default:
			req.Status = 200
			s.issue(w, g.scopes)
		}
	case "refresh_token":
		s.mu.Lock()
		scopes, ok := s.refresh[f.Get("refresh_token")]
		delete(s.refresh, f.Get("refresh_token"))
		s.mu.Unlock()
		if !ok {
			oauthError(w, 400, "invalid_grant", "unknown refresh token")
			return
		}
		req.Status = 200
		s.issue(w, scopes)
	case "client_credentials":
		if client != s.opts.ClientID || f.Get("resource") != s.MCP() {
			oauthError(w, 400, "unauthorized_client", "client credentials")
			return
		}
		req.Status = 200
		s.issue(w, strings.Fields(f.Get("scope")))
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		s.mu.Lock()
		ok := s.jags[f.Get("assertion")]
		delete(s.jags, f.Get("assertion"))
		s.mu.Unlock()
		if !ok || client != s.opts.ClientID {
			oauthError(w, 400, "invalid_grant", "unknown assertion")
			return
		}
		req.Status = 200
		s.issue(w, strings.Fields(f.Get("scope")))
	default:
		oauthError(w, 400, "unsupported_grant_type", f.Get("grant_type"))
	}
}

// exchange is the identity provider's token exchange: the user's ID token
// for an ID-JAG to the authorization server.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f := r.PostForm
	req := Request{Path: r.URL.Path, Form: f, Status: 400}
	defer func() { s.record(req) }()
	if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" || f.Get("subject_token") != s.opts.IDToken ||
		f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
		f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" ||
		f.Get("audience") != s.Issuer() || f.Get("resource") != s.MCP() {
		oauthError(w, 400, "invalid_request", "token exchange")
		return
	}
	s.mu.Lock()
	jag := s.next("jag-")
	s.jags[jag] = true
	s.mu.Unlock()
	req.Status = 200
	writeJSON(w, 200, map[string]any{"access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"})
}

// protect lets through the MCP requests with a token that has the scopes
// they need; 401 or 403 otherwise, with the challenge.
func (s *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = readAll(r)
		}
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		req := Request{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Method: msg.Method}
		need := s.opts.Scopes
		if msg.Method == "tools/call" {
			need = append(slices.Clone(need), s.opts.CallScopes...)
		}
		tok, _ := strings.CutPrefix(req.Auth, "Bearer ")
		s.mu.Lock()
		scopes, ok := s.tokens[tok]
		s.mu.Unlock()
		var params []string
		if !s.opts.Legacy {
			params = append(params, fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, s.URL))
		}
		if len(need) > 0 {
			params = append(params, fmt.Sprintf(`scope="%s"`, strings.Join(need, " ")))
		}
		switch {
		case s.opts.Open:
			req.Status = 200
			r.Body = readCloser(body)
			next.ServeHTTP(w, r)
		case !ok:
			req.Status = 401
			w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
			oauthError(w, 401, "invalid_token", "no valid token")
		case !subset(need, scopes):
			req.Status = 403
			w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(append(params, `error="insufficient_scope"`), ", "))
			oauthError(w, 403, "insufficient_scope", "more scope needed")
		default:
			req.Status = 200
			r.Body = readCloser(body)
			next.ServeHTTP(w, r)
		}
		s.record(req)
	})
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func readAll(r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	return io.ReadAll(io.LimitReader(r.Body, 1<<20))
}

func readCloser(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
