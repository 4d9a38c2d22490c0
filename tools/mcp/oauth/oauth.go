// Package oauth authorizes lathe with HTTP MCP servers as the MCP
// authorization spec says, with the extensions the spec's conformance
// suite tests: it finds the server's authorization server from the 401,
// logs the user in through the browser (lathe mcp login), keeps each
// server's tokens in a file of the user's only, refreshes them, and asks
// for more scopes when a server wants them; a client of its own (client
// credentials) and cross-app access need no browser.
package oauth

import (
	"crypto"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Grants, as the config names them.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	GrantCrossAppAccess    = "cross_app_access"
)

// Config is a server's [oauth] table: names of variables and of a file,
// read only when lathe authorizes (see Resolve).
type Config struct {
	Grant             string // empty is GrantAuthorizationCode
	ClientID          string
	ClientSecretEnv   string
	ClientMetadataURL string
	PrivateKeyFile    string // absolute, or ~/...
	SigningAlgorithm  string
	IdPIssuer         string
	IdPTokenEndpoint  string
	IdPClientID       string
	IDTokenEnv        string
}

// Settings are a server's OAuth settings with the values they name: the
// secrets read from the environment, the key from its file.
type Settings struct {
	Grant             string
	ClientID          string
	ClientSecret      string
	ClientMetadataURL string
	Key               crypto.Signer // signs the client assertion, instead of a secret
	SigningAlgorithm  string        // of Key; empty: the key's own
	IdPIssuer         string
	IdPTokenEndpoint  string
	IdPClientID       string
	IDToken           string
}

// machine reports whether the grant needs no user: lathe gets tokens
// itself, whenever it needs them.
func (s Settings) machine() bool {
	return s.Grant == GrantClientCredentials || s.Grant == GrantCrossAppAccess
}

// Resolve reads what c names: its variables through getenv, its key file
// (~ is $HOME).
func (c Config) Resolve(getenv func(string) string) (Settings, error) {
	s := Settings{Grant: c.Grant, ClientID: c.ClientID, ClientMetadataURL: c.ClientMetadataURL,
		SigningAlgorithm: c.SigningAlgorithm, IdPIssuer: c.IdPIssuer, IdPTokenEndpoint: c.IdPTokenEndpoint,
		IdPClientID: c.IdPClientID}
	if s.Grant == "" {
		s.Grant = GrantAuthorizationCode
	}
	for _, v := range []struct {
		name string
		to   *string
	}{{c.ClientSecretEnv, &s.ClientSecret}, {c.IDTokenEnv, &s.IDToken}} {
		if v.name == "" {
			continue
		}
		if *v.to = getenv(v.name); *v.to == "" {
			return Settings{}, fmt.Errorf("%s, which its oauth table names, is not set", v.name)
		}
	}
	if c.PrivateKeyFile != "" {
		path := c.PrivateKeyFile
		if rest, ok := strings.CutPrefix(path, "~/"); ok {
			path = filepath.Join(getenv("HOME"), rest)
		}
		pem, err := os.ReadFile(path)
		if err != nil {
			return Settings{}, fmt.Errorf("read its private key: %w", err)
		}
		if s.Key, err = ParsePrivateKey(pem); err != nil {
			return Settings{}, fmt.Errorf("its private key %s: %w", path, err)
		}
		if _, err := signingMethod(s.Key, s.SigningAlgorithm); err != nil {
			return Settings{}, fmt.Errorf("its private key %s: %w", path, err)
		}
	}
	return s, nil
}

// LoginError is the error of a server that needs the user to authorize
// lathe, or to authorize it again: lathe mcp login NAME does.
type LoginError struct {
	Server string
	// Scopes are the scopes the server asked for more of, when it did.
	Scopes []string
	// Expired: the authorization lathe had no longer works.
	Expired bool
}

func (e *LoginError) Error() string {
	why := "it needs authorization"
	switch {
	case len(e.Scopes) > 0:
		why = fmt.Sprintf("it asks for more access (scope %q)", strings.Join(e.Scopes, " "))
	case e.Expired:
		why = "its authorization ended"
	}
	return fmt.Sprintf("%s: run lathe mcp login %s", why, e.Server)
}

// ErrNoChallenge is the error of a login to a server that never asked for
// authorization.
var ErrNoChallenge = errors.New("it answered without asking for authorization: there is nothing to log in to")
