package oauth_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/tools/mcp/oauth"
	"lathe/tools/mcp/oauth/oauthtest"
)

// session connects to the server through h as a run does, lists its
// tools, and calls echo when call is set.
func session(t *testing.T, url string, h *oauth.Handler, call bool) error {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "lathe", Version: "test"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url, OAuthHandler: h, MaxRetries: 1}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		return err
	}
	if call {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil {
			return err
		}
		if res.IsError {
			t.Fatalf("echo failed: %+v", res.Content)
		}
	}
	return nil
}

func handler(srv *oauthtest.Server, store oauth.Store, set oauth.Settings) *oauth.Handler {
	if set.Grant == "" {
		set.Grant = oauth.GrantAuthorizationCode
	}
	return oauth.NewHandler(oauth.HandlerOptions{Name: "docs", URL: srv.MCP(), Settings: set, Store: store})
}

func login(t *testing.T, srv *oauthtest.Server, store oauth.Store, set oauth.Settings) (*oauth.Record, string, error) {
	t.Helper()
	if set.Grant == "" {
		set.Grant = oauth.GrantAuthorizationCode
	}
	var out bytes.Buffer
	rec, err := oauth.Login(t.Context(), oauth.LoginOptions{
		HandlerOptions: oauth.HandlerOptions{Name: "docs", URL: srv.MCP(), Settings: set, Store: store},
		Open:           srv.Browser, Out: &out, Version: "test",
	})
	return rec, out.String(), err
}

// TestLoginThenRun: a login discovers the authorization server from the
// 401, registers lathe, sends the browser with PKCE, the resource and the
// scopes, and keeps the tokens in a file of the user's only; a run then
// sends the kept token and needs no login.
func TestLoginThenRun(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}, Refresh: true})
	defer srv.Close()
	store := oauth.Store{Dir: filepath.Join(t.TempDir(), "mcp-oauth")}
	rec, out, err := login(t, srv, store, oauth.Settings{})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	reg := srv.Requests("/as/register")
	if len(reg) != 1 || !strings.HasPrefix(reg[0].Form.Get("redirect_uris"), "[http://127.0.0.1:") ||
		!strings.Contains(reg[0].Form.Get("grant_types"), "refresh_token") {
		t.Errorf("registration: %+v", reg)
	}
	az := srv.Requests("/as/authorize")
	if len(az) != 1 {
		t.Fatalf("%d authorization requests, want 1", len(az))
	}
	q := az[0].Form
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != srv.MCP() ||
		!sameScopes(q.Get("scope"), "mcp:read offline_access") || !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
		t.Errorf("authorization request: %v", q)
	}
	if !strings.Contains(out, "go to:\n  "+srv.Issuer()+"/authorize?") {
		t.Errorf("the URL was not printed: %q", out)
	}
	tok := srv.Requests("/as/token")
	if len(tok) != 1 || tok[0].Form.Get("code_verifier") == "" || tok[0].Form.Get("resource") != srv.MCP() || tok[0].Status != 200 {
		t.Fatalf("token requests: %+v", tok)
	}
	if rec.AccessToken == "" || rec.RefreshToken == "" || !sameScopes(strings.Join(rec.Scopes, " "), "mcp:read offline_access") ||
		rec.Resource != srv.MCP() || rec.ClientID != reg[0].Form.Get("client_id") && rec.ClientID == "" {
		t.Errorf("record: %+v", rec)
	}
	for path, mode := range map[string]os.FileMode{store.Dir: 0o700 | os.ModeDir, store.Path("docs"): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v, %v; want mode %v", path, fi.Mode(), err, mode)
		}
	}
	before := len(srv.Requests("/as/token"))
	if err := session(t, srv.MCP(), handler(srv, store, oauth.Settings{}), true); err != nil {
		t.Fatalf("run after login: %v", err)
	}
	for _, r := range srv.Requests("/mcp") {
		if r.Status == 401 && r.Auth != "" {
			t.Errorf("the run's token was refused: %+v", r)
		}
	}
	if n := len(srv.Requests("/as/token")); n != before {
		t.Errorf("the run asked for %d tokens, want none", n-before)
	}
}

// TestRunWithoutLogin: a run with no token kept says to log in, and keeps
// the server's challenge for the login.
func TestRunWithoutLogin(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}})
	defer srv.Close()
	store := oauth.Store{Dir: t.TempDir()}
	err := session(t, srv.MCP(), handler(srv, store, oauth.Settings{}), false)
	var le *oauth.LoginError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "it needs authorization: run lathe mcp login docs") {
		t.Fatalf("err = %v, want a LoginError", err)
	}
	if n := len(srv.Requests("/as/authorize")); n != 0 {
		t.Errorf("a run went to the browser %d times", n)
	}
	rec, err := store.Load("docs", srv.MCP())
	if err != nil || rec == nil || len(rec.Challenge) == 0 || !strings.Contains(rec.Challenge[0], `scope="mcp:read"`) {
		t.Errorf("kept: %+v, %v; want the challenge", rec, err)
	}
}

// TestRefresh: a token the server no longer takes, or one about to end,
// is refreshed with the refresh token, the resource sent again.
func TestRefresh(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}, Refresh: true})
	defer srv.Close()
	store := oauth.Store{Dir: t.TempDir()}
	first, _, err := login(t, srv, store, oauth.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	srv.Revoke()
	if err := session(t, srv.MCP(), handler(srv, store, oauth.Settings{}), false); err != nil {
		t.Fatalf("run with a revoked token: %v", err)
	}
	refreshes := func() []oauthtest.Request {
		var out []oauthtest.Request
		for _, r := range srv.Requests("/as/token") {
			if r.Form.Get("grant_type") == "refresh_token" {
				out = append(out, r)
			}
		}
		return out
	}
	if r := refreshes(); len(r) != 1 || r[0].Form.Get("refresh_token") != first.RefreshToken || r[0].Form.Get("resource") != srv.MCP() {
		t.Fatalf("refreshes: %+v", r)
	}
	second, _ := store.Load("docs", srv.MCP())
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Error("the refreshed tokens were not kept")
	}
	// Two hours on, the token has ended: it is refreshed before it is sent.
	later := oauth.NewHandler(oauth.HandlerOptions{Name: "docs", URL: srv.MCP(), Store: store,
		Settings: oauth.Settings{Grant: oauth.GrantAuthorizationCode}, Now: func() time.Time { return time.Now().Add(2 * time.Hour) }})
	refused := len(srv.Requests("/mcp"))
	if err := session(t, srv.MCP(), later, false); err != nil {
		t.Fatal(err)
	}
	if len(refreshes()) != 2 {
		t.Errorf("%d refreshes, want 2", len(refreshes()))
	}
	for _, r := range srv.Requests("/mcp")[refused:] {
		if r.Status != 200 {
			t.Errorf("a request was refused (%d): the token was not refreshed first", r.Status)
		}
	}
}

// TestStepUp: a call the server refuses for want of a scope says to log in
// again; the login asks for the scopes granted and the one wanted; the call
// then goes through.
func TestStepUp(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}, CallScopes: []string{"mcp:write"}})
	defer srv.Close()
	store := oauth.Store{Dir: t.TempDir()}
	if _, _, err := login(t, srv, store, oauth.Settings{}); err != nil {
		t.Fatal(err)
	}
	err := session(t, srv.MCP(), handler(srv, store, oauth.Settings{}), true)
	var le *oauth.LoginError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "it asks for more access") ||
		!sameScopes(strings.Join(le.Scopes, " "), "mcp:read offline_access mcp:write") {
		t.Fatalf("call: err = %v, want a LoginError for more scope", err)
	}
	if _, _, err := login(t, srv, store, oauth.Settings{}); err != nil {
		t.Fatal(err)
	}
	az := srv.Requests("/as/authorize")
	if got := strings.Fields(az[len(az)-1].Form.Get("scope")); !slices.Contains(got, "mcp:write") || !slices.Contains(got, "mcp:read") {
		t.Errorf("second login asked for %q, want mcp:read and mcp:write", got)
	}
	if err := session(t, srv.MCP(), handler(srv, store, oauth.Settings{}), true); err != nil {
		t.Fatalf("call after the second login: %v", err)
	}
}

// TestClientCredentials: a client of its own gets its token at the first
// 401, with its secret in Basic, or with a JWT it signs; no login.
func TestClientCredentials(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts oauthtest.Options
		set  oauth.Settings
		auth func(oauthtest.Request) bool
	}{
		{"secret", oauthtest.Options{ClientID: "ci", ClientSecret: "s3cret", AuthMethods: []string{"client_secret_basic"}},
			oauth.Settings{ClientID: "ci", ClientSecret: "s3cret"},
			func(r oauthtest.Request) bool { return strings.HasPrefix(r.Auth, "Basic ") }},
		{"jwt", oauthtest.Options{ClientID: "ci", PublicKey: &key.PublicKey, AuthMethods: []string{"private_key_jwt"}},
			oauth.Settings{ClientID: "ci", Key: key, SigningAlgorithm: "ES256"},
			func(r oauthtest.Request) bool { return r.Form.Get("client_assertion") != "" && r.Auth == "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Scopes = []string{"mcp:read"}
			srv := oauthtest.New(tc.opts)
			defer srv.Close()
			tc.set.Grant = oauth.GrantClientCredentials
			if err := session(t, srv.MCP(), handler(srv, oauth.Store{Dir: t.TempDir()}, tc.set), true); err != nil {
				t.Fatal(err)
			}
			tok := srv.Requests("/as/token")
			if len(tok) != 1 || tok[0].Status != 200 || tok[0].Form.Get("grant_type") != "client_credentials" ||
				tok[0].Form.Get("scope") != "mcp:read" || tok[0].Form.Get("resource") != srv.MCP() || !tc.auth(tok[0]) {
				t.Errorf("token requests: %+v", tok)
			}
			if n := len(srv.Requests("/as/authorize")); n != 0 {
				t.Errorf("%d authorization requests: client credentials need no browser", n)
			}
		})
	}
}

// TestCrossAppAccess: the user's ID token is exchanged at the identity
// provider for an ID-JAG, which the authorization server takes for a
// token.
func TestCrossAppAccess(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}, ClientID: "xaa", ClientSecret: "xs",
		AuthMethods: []string{"client_secret_basic"}, IDToken: "id-token-of-the-user"})
	defer srv.Close()
	set := oauth.Settings{Grant: oauth.GrantCrossAppAccess, ClientID: "xaa", ClientSecret: "xs",
		IdPTokenEndpoint: srv.IdPToken(), IdPClientID: "lathe-at-idp", IDToken: "id-token-of-the-user"}
	if err := session(t, srv.MCP(), handler(srv, oauth.Store{Dir: t.TempDir()}, set), true); err != nil {
		t.Fatal(err)
	}
	x := srv.Requests("/idp/token")
	if len(x) != 1 || x[0].Status != 200 || x[0].Form.Get("client_id") != "lathe-at-idp" || x[0].Form.Get("scope") != "mcp:read" {
		t.Fatalf("token exchange: %+v", x)
	}
	tok := srv.Requests("/as/token")
	if len(tok) != 1 || tok[0].Status != 200 || tok[0].Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" ||
		!strings.HasPrefix(tok[0].Form.Get("assertion"), "jag-") || !strings.HasPrefix(tok[0].Auth, "Basic ") {
		t.Errorf("JWT grant: %+v", tok)
	}
}

// TestLegacyServer: a server without protected-resource metadata is a
// 2025-03-26 one: the metadata at its root names the endpoints, whatever
// issuer it names (here /as, not the root), and the login, the run's
// refresh and a client of its own use them. A server of the current spec
// whose authorization server's metadata names another issuer than its
// own is refused (RFC 8414, section 3.3).
func TestLegacyServer(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}, Refresh: true, Legacy: true,
		ClientID: "ci", ClientSecret: "s3cret", AuthMethods: []string{"none", "client_secret_basic"}})
	defer srv.Close()
	store := oauth.Store{Dir: t.TempDir()}
	rec, _, err := login(t, srv, store, oauth.Settings{})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if m := srv.Requests("/.well-known/oauth-authorization-server"); len(m) == 0 || m[0].Status != 200 {
		t.Errorf("the root's metadata was not read: %+v", m)
	}
	az := srv.Requests("/as/authorize")
	if len(az) != 1 || az[0].Status != 302 || az[0].Form.Get("code_challenge_method") != "S256" ||
		az[0].Form.Get("resource") != srv.MCP() || az[0].Form.Get("scope") != "mcp:read" {
		t.Fatalf("authorization requests: %+v", az)
	}
	if len(srv.Requests("/as/register")) != 1 || rec.TokenEndpoint != srv.Issuer()+"/token" || rec.RefreshToken == "" {
		t.Errorf("record %+v after %d registrations", rec, len(srv.Requests("/as/register")))
	}
	srv.Revoke()
	if err := session(t, srv.MCP(), handler(srv, store, oauth.Settings{}), true); err != nil {
		t.Fatalf("run after the login: %v", err)
	}
	machine := oauth.Settings{Grant: oauth.GrantClientCredentials, ClientID: "ci", ClientSecret: "s3cret"}
	if err := session(t, srv.MCP(), handler(srv, oauth.Store{Dir: t.TempDir()}, machine), true); err != nil {
		t.Fatalf("client credentials: %v", err)
	}

	current := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}, OtherIssuer: true})
	defer current.Close()
	_, _, err = login(t, current, oauth.Store{Dir: t.TempDir()}, oauth.Settings{})
	if err == nil || !strings.Contains(err.Error(), "issuer") {
		t.Errorf("login with another issuer: err = %v, want it refused for its issuer", err)
	}
	if n := len(current.Requests("/as/authorize")); n != 0 {
		t.Errorf("%d authorization requests to a server whose metadata names another issuer", n)
	}
}

// TestRecordForItsURL: a record is only for the URL it was made for.
func TestRecordForItsURL(t *testing.T) {
	store := oauth.Store{Dir: t.TempDir()}
	if err := store.Save("docs", &oauth.Record{URL: "https://a.example/mcp", AccessToken: "t"}); err != nil {
		t.Fatal(err)
	}
	if r, err := store.Load("docs", "https://evil.example/mcp"); r != nil || err != nil {
		t.Errorf("another URL got %+v, %v", r, err)
	}
	if r, _ := store.Load("docs", "https://a.example/mcp"); r == nil || r.AccessToken != "t" {
		t.Errorf("its URL got %+v", r)
	}
	if ok, err := store.Delete("docs"); !ok || err != nil {
		t.Errorf("delete: %v, %v", ok, err)
	}
	if ok, err := store.Delete("docs"); ok || err != nil {
		t.Errorf("delete again: %v, %v", ok, err)
	}
	if _, err := store.Delete("../config"); err == nil {
		t.Error("a name that leads out of the directory was taken")
	}
}

// TestNoChallenge: a login to a server that never asks is an error, and
// keeps nothing.
func TestNoChallenge(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{Open: true})
	defer srv.Close()
	store := oauth.Store{Dir: t.TempDir()}
	if _, _, err := login(t, srv, store, oauth.Settings{}); !errors.Is(err, oauth.ErrNoChallenge) {
		t.Fatalf("err = %v, want ErrNoChallenge", err)
	}
	if r, _ := store.Load("docs", srv.MCP()); r != nil {
		t.Errorf("kept %+v", r)
	}
}

func TestBrowserCommands(t *testing.T) {
	const u = "https://as.example/authorize?a=1%20b"
	for _, tc := range []struct {
		env, goos string
		want      [][]string
	}{
		{"", "linux", [][]string{{"xdg-open", u}, {"x-www-browser", u}, {"sensible-browser", u}}},
		{"", "darwin", [][]string{{"open", u}}},
		{"firefox", "linux", [][]string{{"firefox", u}}},
		{"w3m -o x=%%:lynx %s --dump", "linux", [][]string{{"w3m", "-o", "x=%", u}, {"lynx", u, "--dump"}}},
	} {
		if got := (oauth.Browser{Env: tc.env, GOOS: tc.goos}).Commands(u); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("BROWSER=%q on %s: %q, want %q", tc.env, tc.goos, got, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "SECRET": "s"}
	getenv := func(k string) string { return env[k] }
	key, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err := os.WriteFile(filepath.Join(dir, "k.pem"), pemKey(t, key), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := oauth.Config{Grant: "client_credentials", ClientID: "c", PrivateKeyFile: "~/k.pem"}.Resolve(getenv)
	if err != nil || set.Key == nil {
		t.Fatalf("resolve: %+v, %v", set, err)
	}
	if _, err := (oauth.Config{ClientID: "c", PrivateKeyFile: "~/k.pem", SigningAlgorithm: "ES256"}).Resolve(getenv); err == nil ||
		!strings.Contains(err.Error(), "signing_algorithm ES256 does not go with the key, which signs with ES384") {
		t.Errorf("a P-384 key with ES256: %v", err)
	}
	if _, err := (oauth.Config{ClientID: "c", ClientSecretEnv: "NOPE"}).Resolve(getenv); err == nil ||
		!strings.Contains(err.Error(), "NOPE, which its oauth table names, is not set") {
		t.Errorf("unset secret: %v", err)
	}
	if set, err := (oauth.Config{ClientID: "c", ClientSecretEnv: "SECRET"}).Resolve(getenv); err != nil || set.ClientSecret != "s" ||
		set.Grant != oauth.GrantAuthorizationCode {
		t.Errorf("secret: %+v, %v", set, err)
	}
}

// sameScopes reports whether two scope strings hold the same scopes.
func sameScopes(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func pemKey(t *testing.T, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}
