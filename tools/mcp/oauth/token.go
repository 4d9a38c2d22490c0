package oauth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// How a client authenticates at a token endpoint (RFC 7591's names).
const (
	methodBasic = "client_secret_basic"
	methodPost  = "client_secret_post"
	methodNone  = "none"
	methodJWT   = "private_key_jwt"
)

// tokenEndpoint is an authorization server's token endpoint, and how
// lathe authenticates there.
type tokenEndpoint struct {
	URL    string
	Issuer string // the audience of a client assertion
	Client *http.Client

	ClientID     string
	ClientSecret string
	Method       string        // one of the method constants
	Key          crypto.Signer // with methodJWT
	Alg          string
	Now          func() time.Time
}

// request asks the token endpoint for a token with the form params
// (grant_type among them).
func (e tokenEndpoint) request(ctx context.Context, params map[string]string) (*oauth2.Token, error) {
	cfg := &oauth2.Config{ClientID: e.ClientID, Endpoint: oauth2.Endpoint{TokenURL: e.URL, AuthStyle: oauth2.AuthStyleInParams}}
	var opts []oauth2.AuthCodeOption
	switch e.Method {
	case methodJWT:
		now := time.Now
		if e.Now != nil {
			now = e.Now
		}
		assertion, err := clientAssertion(e.Key, e.Alg, e.ClientID, e.Issuer, now())
		if err != nil {
			return nil, fmt.Errorf("sign the client assertion: %w", err)
		}
		opts = append(opts, oauth2.SetAuthURLParam("client_assertion_type", assertionType),
			oauth2.SetAuthURLParam("client_assertion", assertion))
	case methodPost:
		cfg.ClientSecret = e.ClientSecret
	case methodNone:
	default:
		cfg.ClientSecret = e.ClientSecret
		cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if params[k] != "" {
			opts = append(opts, oauth2.SetAuthURLParam(k, params[k]))
		}
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, client), "", opts...)
	if err != nil {
		return nil, tokenError(err)
	}
	return tok, nil
}

// secretMethod is how a client with a secret authenticates at an
// authorization server that supports the methods given: Basic, unless it
// takes only the secret in the form (RFC 8414 makes Basic the default).
func secretMethod(supported []string) string {
	if !slices.Contains(supported, methodBasic) && slices.Contains(supported, methodPost) {
		return methodPost
	}
	return methodBasic
}

// styleMethod names the way an oauth2.Config authenticates.
func styleMethod(style oauth2.AuthStyle, secret string) string {
	switch {
	case secret == "":
		return methodNone
	case style == oauth2.AuthStyleInParams:
		return methodPost
	}
	return methodBasic
}

// tokenError says what a token endpoint answered, without its body.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return err
	}
	var msg string
	switch {
	case re.ErrorCode != "" && re.ErrorDescription != "":
		msg = re.ErrorCode + ": " + re.ErrorDescription
	case re.ErrorCode != "":
		msg = re.ErrorCode
	case re.Response != nil:
		msg = re.Response.Status
	default:
		msg = "no token"
	}
	return &TokenError{Code: re.ErrorCode, Msg: msg}
}

// TokenError is a token endpoint's refusal.
type TokenError struct {
	Code string // the OAuth error code, such as invalid_grant
	Msg  string
}

func (e *TokenError) Error() string { return "the token endpoint refused: " + e.Msg }

// grantedScopes are the scopes a token response says were granted, or
// asked when it does not say.
func grantedScopes(tok *oauth2.Token, asked []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		return strings.Fields(s)
	}
	return asked
}
