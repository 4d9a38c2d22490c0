package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// The grants lathe authorizes with an HTTP MCP server by.
const (
	// GrantAuthorizationCode: the user says yes in the browser (lathe mcp
	// login), the MCP authorization spec's own flow. The default.
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials: lathe is a client of its own, with a secret
	// or a private key, and no user.
	GrantClientCredentials = "client_credentials"
	// GrantCrossAppAccess: the ID token an identity provider gave the user
	// is exchanged there for a grant the server's authorization server takes.
	GrantCrossAppAccess = "cross_app_access"
)

// SigningAlgorithms are the JWS algorithms a client assertion may be
// signed with.
var SigningAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// MCPOAuth is how lathe authorizes with an HTTP MCP server
// ([mcp.servers.NAME.oauth]): a server without the table is authorized
// the default way, when it asks, by dynamic client registration and the
// browser. No secret is ever in the table: it names the variables that
// hold them.
type MCPOAuth struct {
	// ClientID is a client registered with the authorization server
	// beforehand; without it lathe registers itself.
	ClientID string `toml:"client_id"`
	// ClientSecretEnv names the variable holding ClientID's secret.
	ClientSecretEnv string `toml:"client_secret_env"`
	// ClientMetadataURL is the https URL of a client ID metadata document
	// describing lathe, used as its client ID where the server takes one.
	ClientMetadataURL string `toml:"client_metadata_url"`
	// Grant is GrantAuthorizationCode (empty), GrantClientCredentials or
	// GrantCrossAppAccess.
	Grant string `toml:"grant"`
	// PrivateKeyFile is a PEM private key (an absolute path, or ~/...)
	// signing the JWT lathe authenticates with instead of a secret, with
	// SigningAlgorithm (default: the key's own).
	PrivateKeyFile   string `toml:"private_key_file"`
	SigningAlgorithm string `toml:"signing_algorithm"`
	// Cross-app access: the identity provider (its issuer, or its token
	// endpoint itself), lathe's client ID there, and the variable holding
	// the user's ID token.
	IdPIssuer        string `toml:"idp_issuer"`
	IdPTokenEndpoint string `toml:"idp_token_endpoint"`
	IdPClientID      string `toml:"idp_client_id"`
	IDTokenEnv       string `toml:"id_token_env"`
}

// GrantOrDefault is the grant, GrantAuthorizationCode when unset.
func (o MCPOAuth) GrantOrDefault() string {
	if o.Grant == "" {
		return GrantAuthorizationCode
	}
	return o.Grant
}

// checkOAuth reports the first problem of a server's oauth table: the key
// (relative to the server's table) and what is wrong.
func (s MCPServer) checkOAuth() (key, msg string) {
	o := s.OAuth
	if o == nil {
		return "", ""
	}
	grant := o.GrantOrDefault()
	machine := grant == GrantClientCredentials || grant == GrantCrossAppAccess
	for _, env := range []struct{ key, name string }{
		{"oauth.client_secret_env", o.ClientSecretEnv}, {"oauth.id_token_env", o.IDTokenEnv},
	} {
		if env.name != "" && !envName.MatchString(env.name) {
			return env.key, fmt.Sprintf("%q is not an environment variable's name", env.name)
		}
	}
	switch {
	case s.URL == "":
		return "oauth", "goes with url: lathe authorizes HTTP servers, not the programs it starts"
	case s.BearerTokenEnv != "" || s.authorizationHeader():
		return "oauth", "the server already gets a token (bearer_token_env or an Authorization header): give one or the other"
	case grant != GrantAuthorizationCode && !machine:
		return "oauth.grant", fmt.Sprintf("must be %q, %q or %q", GrantAuthorizationCode, GrantClientCredentials, GrantCrossAppAccess)
	case o.ClientSecretEnv != "" && o.ClientID == "":
		return "oauth.client_secret_env", "goes with client_id, the client whose secret it is"
	case o.ClientMetadataURL != "" && !metadataURL(o.ClientMetadataURL):
		return "oauth.client_metadata_url", fmt.Sprintf("%q is not an https URL with a path, such as https://example.com/lathe.json", o.ClientMetadataURL)
	case o.ClientMetadataURL != "" && machine:
		return "oauth.client_metadata_url", fmt.Sprintf("goes with grant = %q", GrantAuthorizationCode)
	case o.PrivateKeyFile != "" && !machine:
		return "oauth.private_key_file", fmt.Sprintf("goes with grant = %q or %q", GrantClientCredentials, GrantCrossAppAccess)
	case o.PrivateKeyFile != "" && o.ClientSecretEnv != "":
		return "oauth.private_key_file", "give client_secret_env or private_key_file, not both"
	case o.PrivateKeyFile != "" && !filepath.IsAbs(o.PrivateKeyFile) && !strings.HasPrefix(o.PrivateKeyFile, "~/"):
		return "oauth.private_key_file", fmt.Sprintf("%q is not an absolute path (nor one under ~/)", o.PrivateKeyFile)
	case o.SigningAlgorithm != "" && o.PrivateKeyFile == "":
		return "oauth.signing_algorithm", "goes with private_key_file"
	case o.SigningAlgorithm != "" && !slices.Contains(SigningAlgorithms, o.SigningAlgorithm):
		return "oauth.signing_algorithm", "must be one of " + strings.Join(SigningAlgorithms, ", ")
	case machine && o.ClientID == "":
		return "oauth.client_id", fmt.Sprintf("grant = %q needs the client lathe is at the authorization server", grant)
	case grant == GrantClientCredentials && o.ClientSecretEnv == "" && o.PrivateKeyFile == "":
		return "oauth.client_secret_env", fmt.Sprintf("grant = %q needs client_secret_env or private_key_file", grant)
	}
	return s.checkCrossApp(grant)
}

// checkCrossApp checks the identity provider's settings: all of them
// with grant cross_app_access, none without.
func (s MCPServer) checkCrossApp(grant string) (key, msg string) {
	o := s.OAuth
	if grant != GrantCrossAppAccess {
		for _, k := range []struct{ key, v string }{
			{"idp_issuer", o.IdPIssuer}, {"idp_token_endpoint", o.IdPTokenEndpoint},
			{"idp_client_id", o.IdPClientID}, {"id_token_env", o.IDTokenEnv},
		} {
			if k.v != "" {
				return "oauth." + k.key, fmt.Sprintf("goes with grant = %q", GrantCrossAppAccess)
			}
		}
		return "", ""
	}
	switch {
	case o.IdPIssuer == "" && o.IdPTokenEndpoint == "":
		return "oauth.idp_issuer", "cross-app access needs the identity provider: idp_issuer, or idp_token_endpoint"
	case o.IdPClientID == "":
		return "oauth.idp_client_id", "cross-app access needs lathe's client ID at the identity provider"
	case o.IDTokenEnv == "":
		return "oauth.id_token_env", "cross-app access needs the variable holding the user's ID token"
	}
	for _, k := range []struct{ key, v string }{{"idp_issuer", o.IdPIssuer}, {"idp_token_endpoint", o.IdPTokenEndpoint}} {
		if u, err := url.Parse(k.v); k.v != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			return "oauth." + k.key, fmt.Sprintf("%q is not an http or https URL", k.v)
		}
	}
	return "", ""
}

// authorizationHeader reports whether the server's headers carry a token.
func (s MCPServer) authorizationHeader() bool {
	for k := range s.Headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// metadataURL reports whether u may be a client ID metadata document's
// URL: https, with a path.
func metadataURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "https" && p.Host != "" && strings.Trim(p.Path, "/") != ""
}
