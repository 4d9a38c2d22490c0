package oauth

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// grantJWTBearer is the grant of a JWT assertion (RFC 7523): the ID-JAG
// of cross-app access.
const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// obtain gets a token without the user, for the scopes given (else those
// the server's metadata lists): with lathe's own client credentials, or
// with the grant the identity provider gives for the user's ID token
// (cross-app access). It keeps the token.
func (h *Handler) obtain(ctx context.Context, challenges []oauthex.Challenge, scopes []string) error {
	d, err := discover(ctx, h.o.Client, challenges, h.o.URL)
	if err != nil {
		return err
	}
	if len(scopes) == 0 {
		scopes = d.prm.ScopesSupported
	}
	set := h.o.Settings
	e := tokenEndpoint{URL: d.asm.TokenEndpoint, Issuer: d.asm.Issuer, Client: h.o.Client, ClientID: set.ClientID,
		ClientSecret: set.ClientSecret, Method: methodNone, Now: h.o.Now}
	switch {
	case set.Key != nil:
		e.Method, e.Key, e.Alg = methodJWT, set.Key, set.SigningAlgorithm
	case set.ClientSecret != "":
		e.Method = secretMethod(d.asm.TokenEndpointAuthMethodsSupported)
	}
	params := map[string]string{"grant_type": "client_credentials", "scope": strings.Join(scopes, " "), "resource": d.prm.Resource}
	if set.Grant == GrantCrossAppAccess {
		jag, err := h.idJAG(ctx, d, scopes)
		if err != nil {
			return err
		}
		params["grant_type"], params["assertion"] = grantJWTBearer, jag
	}
	tok, err := e.request(ctx, params)
	if err != nil {
		return err
	}
	h.rec = &Record{URL: h.o.URL, Resource: d.prm.Resource, Issuer: d.asm.Issuer, TokenEndpoint: e.URL,
		ClientID: set.ClientID, AuthMethod: e.Method}
	h.take(tok, scopes)
	return h.o.Store.Save(h.o.Name, h.rec)
}

// idJAG exchanges the user's ID token at the identity provider for an
// identity assertion grant (ID-JAG) to the server's authorization server
// (RFC 8693 token exchange, as cross-app access has it).
func (h *Handler) idJAG(ctx context.Context, d discovery, scopes []string) (string, error) {
	set := h.o.Settings
	endpoint := set.IdPTokenEndpoint
	if endpoint == "" {
		meta, err := auth.GetAuthServerMetadata(ctx, set.IdPIssuer, h.o.Client)
		switch {
		case err != nil:
			return "", fmt.Errorf("the identity provider's metadata: %w", err)
		case meta == nil || meta.TokenEndpoint == "":
			return "", fmt.Errorf("the identity provider %s publishes no token endpoint: set idp_token_endpoint", set.IdPIssuer)
		}
		endpoint = meta.TokenEndpoint
	}
	tok, err := oauthex.ExchangeToken(ctx, endpoint, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG, Audience: d.asm.Issuer, Resource: d.prm.Resource, Scope: scopes,
		SubjectToken: set.IDToken, SubjectTokenType: oauthex.TokenTypeIDToken,
	}, &oauthex.ClientCredentials{ClientID: set.IdPClientID}, h.o.Client)
	if err != nil {
		return "", fmt.Errorf("the identity provider did not exchange the ID token: %w", tokenError(err))
	}
	return tok.AccessToken, nil
}
