package oauth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// A server without protected-resource metadata is authorized as the
// 2025-03-26 spec has it: its base URL (its URL without the path) is the
// authorization base URL; the metadata there, at
// /.well-known/oauth-authorization-server, names the endpoints, and
// without it they are /authorize, /token and /register of the base URL.
// That spec takes the metadata found there for the base URL's, whatever
// issuer it names, where RFC 8414 (section 3.3) has a client refuse an
// issuer other than the one it looked for: the current spec's way,
// through the protected-resource metadata, keeps that rule (the SDK's).

// legacyMetaPath is where a 2025-03-26 server keeps its metadata.
const legacyMetaPath = "/.well-known/oauth-authorization-server"

// legacyProtocol is the version a 2025-03-26 client says it speaks when it
// asks for the metadata.
const legacyProtocol = "2025-03-26"

// baseURL is serverURL without its path, query and fragment.
func baseURL(serverURL string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", err
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	return u.String(), nil
}

// legacyServerMeta is the authorization server of a server without
// protected-resource metadata: the metadata at its base URL, checked as
// the SDK checks any (its endpoints, PKCE) but for the issuer, which is
// not compared; without metadata, the default endpoints.
func legacyServerMeta(ctx context.Context, client *http.Client, base string) (*oauthex.AuthServerMeta, error) {
	metaURL := base + legacyMetaPath
	issuer, found, err := metadataIssuer(ctx, client, metaURL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("its authorization server's metadata: %w", err)
	case !found:
		return &oauthex.AuthServerMeta{Issuer: base, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token",
			RegistrationEndpoint: base + "/register", CodeChallengeMethodsSupported: []string{"S256"}}, nil
	}
	asm, err := oauthex.GetAuthServerMeta(ctx, metaURL, issuer, client)
	if err != nil {
		return nil, fmt.Errorf("its authorization server's metadata: %w", err)
	}
	if asm == nil {
		return nil, fmt.Errorf("its authorization server's metadata %s went away", metaURL)
	}
	return asm, nil
}

// metadataIssuer reads the issuer the metadata at metaURL names; found is
// false when there is none there (a 4xx, as the SDK takes it).
func metadataIssuer(ctx context.Context, client *http.Client, metaURL string) (issuer string, found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metaURL, nil)
	if err != nil {
		return "", false, err
	}
	req.Header.Set("MCP-Protocol-Version", legacyProtocol)
	resp, err := client.Do(req)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return "", false, nil
	case resp.StatusCode != http.StatusOK:
		return "", false, fmt.Errorf("%s answered %s", metaURL, resp.Status)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return "", false, fmt.Errorf("%s is not JSON", metaURL)
	}
	var m struct {
		Issuer string `json:"issuer"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m); err != nil {
		return "", false, fmt.Errorf("%s: %w", metaURL, err)
	}
	return m.Issuer, true, nil
}

// legacyAuthorize is the authorization code flow with a server without
// protected-resource metadata: the endpoints of its base URL, lathe
// registered as the SDK's handler would (a client ID metadata document
// where the server takes one, the config's client, else dynamic
// registration), PKCE, and the server's URL as the resource. It leaves
// the client and the token in l.cfg and l.tok, the token to send in
// l.legacy.
func (l *loginHandler) legacyAuthorize(ctx context.Context, resp *http.Response, serverURL string) error {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	base, err := baseURL(serverURL)
	if err != nil {
		return err
	}
	asm, err := legacyServerMeta(ctx, l.o.Client, base)
	if err != nil {
		return err
	}
	if len(asm.CodeChallengeMethodsSupported) > 0 && !slices.Contains(asm.CodeChallengeMethodsSupported, "S256") {
		return errors.New("its authorization server does not take PKCE with S256")
	}
	cfg, err := l.legacyClient(ctx, asm)
	if err != nil {
		return err
	}
	cfg.Scopes = l.scopes(challenged(challenges))
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	l.resource = serverURL
	res, err := l.fetch(ctx, &auth.AuthorizationArgs{URL: cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("resource", serverURL))})
	switch {
	case err != nil:
		return err
	case res.State != state:
		return errors.New("the browser came back with another state than the one sent")
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, l.o.Client), res.Code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", serverURL))
	if err != nil {
		return fmt.Errorf("token exchange failed: %w", tokenError(err))
	}
	l.cfg, l.tok, l.legacy = cfg, tok, oauth2.StaticTokenSource(tok)
	return nil
}

// legacyClient is the client lathe is at asm, with its endpoints.
func (l *loginHandler) legacyClient(ctx context.Context, asm *oauthex.AuthServerMeta) (*oauth2.Config, error) {
	cfg := &oauth2.Config{RedirectURL: l.redirect, Endpoint: oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint,
		TokenURL: asm.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams}}
	set := l.o.Settings
	switch {
	case set.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported:
		cfg.ClientID = set.ClientMetadataURL
	case set.ClientID != "":
		cfg.ClientID, cfg.ClientSecret = set.ClientID, set.ClientSecret
		if secretMethod(asm.TokenEndpointAuthMethodsSupported) == methodBasic {
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
		}
	case asm.RegistrationEndpoint != "":
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, l.registration, l.o.Client)
		if err != nil {
			return nil, fmt.Errorf("failed to register client: %w", err)
		}
		cfg.ClientID, cfg.ClientSecret = reg.ClientID, reg.ClientSecret
		if reg.ClientSecret != "" && reg.TokenEndpointAuthMethod != methodPost {
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
		}
	default:
		return nil, errors.New("its authorization server takes no registration, and the config names no client_id")
	}
	return cfg, nil
}
