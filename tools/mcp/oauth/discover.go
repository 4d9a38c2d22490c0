package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// discovery is what lathe learns of a server's authorization: its
// protected-resource metadata and its authorization server's.
type discovery struct {
	prm *oauthex.ProtectedResourceMetadata
	asm *oauthex.AuthServerMeta
}

// discover finds the server's protected-resource metadata (RFC 9728) and
// then its first authorization server's metadata (RFC 8414, or OpenID
// discovery). A server without protected-resource metadata is taken as
// the 2025-03-26 spec has it (see legacyServerMeta).
func discover(ctx context.Context, client *http.Client, challenges []oauthex.Challenge, serverURL string) (discovery, error) {
	prm, err := protectedResource(ctx, client, challenges, serverURL)
	if err != nil {
		return discovery{}, err
	}
	if prm == nil {
		base, err := baseURL(serverURL)
		if err != nil {
			return discovery{}, err
		}
		asm, err := legacyServerMeta(ctx, client, base)
		if err != nil {
			return discovery{}, err
		}
		return discovery{prm: &oauthex.ProtectedResourceMetadata{Resource: serverURL, AuthorizationServers: []string{base}}, asm: asm}, nil
	}
	as := prm.AuthorizationServers[0]
	asm, err := auth.GetAuthServerMetadata(ctx, as, client)
	if err != nil {
		return discovery{}, fmt.Errorf("its authorization server's metadata: %w", err)
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{Issuer: as, AuthorizationEndpoint: as + "/authorize", TokenEndpoint: as + "/token",
			RegistrationEndpoint: as + "/register"}
	}
	return discovery{prm: prm, asm: asm}, nil
}

// protectedResource is the server's protected-resource metadata, from
// where its challenge says, else from the well-known places for its URL;
// nil when there is none.
func protectedResource(ctx context.Context, client *http.Client, challenges []oauthex.Challenge, serverURL string) (*oauthex.ProtectedResourceMetadata, error) {
	for _, u := range metadataURLs(param(challenges, "resource_metadata"), serverURL) {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, u.url, u.resource, client)
		if err != nil || prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("its protected-resource metadata %s names no authorization server", u.url)
		}
		return prm, nil
	}
	return nil, nil
}

type metadataURL struct{ url, resource string }

// metadataURLs are where a server's protected-resource metadata may be, in
// the order the MCP spec tries them, each with the resource it must name.
func metadataURLs(fromChallenge, serverURL string) []metadataURL {
	var out []metadataURL
	if fromChallenge != "" {
		out = append(out, metadataURL{fromChallenge, serverURL})
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return out
	}
	m := *u
	m.RawQuery, m.Fragment = "", ""
	if p := strings.Trim(u.Path, "/"); p != "" {
		m.Path = "/.well-known/oauth-protected-resource/" + p
		out = append(out, metadataURL{m.String(), serverURL})
	}
	m.Path = "/.well-known/oauth-protected-resource"
	root := *u
	root.Path, root.RawQuery, root.Fragment = "", "", ""
	return append(out, metadataURL{m.String(), root.String()})
}

// param is the parameter name of the first Bearer challenge that has it.
func param(challenges []oauthex.Challenge, name string) string {
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params[name] != "" {
			return c.Params[name]
		}
	}
	return ""
}

// challenged are the scopes a challenge asks for.
func challenged(challenges []oauthex.Challenge) []string {
	return strings.Fields(param(challenges, "scope"))
}
