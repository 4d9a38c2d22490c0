package engine

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/config"
	"lathe/tools/mcp"
	"lathe/tools/mcp/oauth"
)

// TestMCPServers: every setting of a configured server reaches the MCP
// manager.
func TestMCPServers(t *testing.T) {
	off, no := false, false
	got := mcpServers(config.MCP{Sampling: "deny", Servers: map[string]config.MCPServer{
		"fs": {Command: "fs-mcp", Args: []string{"--ro"}, Env: map[string]string{"A": "1"}, Cwd: "sub",
			Enabled: &off, Tools: []string{"read"}, Timeout: config.Duration{Duration: 90 * time.Second}, Approve: "always",
			ReadOnlyHint: &no, Origin: "/p/.lathe/config.toml", Elicitation: "accept", Sampling: "allow"},
		"docs": {URL: "https://docs.example/mcp", Headers: map[string]string{"X-Team": "core"}, BearerTokenEnv: "DOCS_TOKEN"},
		"corp": {URL: "https://corp.example/mcp", OAuth: &config.MCPOAuth{Grant: "cross_app_access", ClientID: "c",
			ClientSecretEnv: "S", ClientMetadataURL: "https://l.example/c.json", PrivateKeyFile: "/k.pem", SigningAlgorithm: "ES256",
			IdPIssuer: "https://idp.example", IdPTokenEndpoint: "https://idp.example/token", IdPClientID: "i", IDTokenEnv: "ID"}},
	}}, "/p")
	want := map[string]mcp.Server{
		"fs": {Command: "fs-mcp", Args: []string{"--ro"}, Env: map[string]string{"A": "1"}, Cwd: "sub",
			Off: true, Tools: []string{"read"}, Timeout: 90 * time.Second, Preapproved: true, IgnoreReadOnly: true, Project: true,
			Elicitation: "accept", Sampling: "allow"},
		"docs": {URL: "https://docs.example/mcp", Headers: map[string]string{"X-Team": "core"}, BearerTokenEnv: "DOCS_TOKEN",
			Timeout: config.DefaultMCPTimeout, Elicitation: "ask", Sampling: "deny"},
		"corp": {URL: "https://corp.example/mcp", Timeout: config.DefaultMCPTimeout, OAuth: oauth.Config{Grant: "cross_app_access",
			ClientID: "c", ClientSecretEnv: "S", ClientMetadataURL: "https://l.example/c.json", PrivateKeyFile: "/k.pem",
			SigningAlgorithm: "ES256", IdPIssuer: "https://idp.example", IdPTokenEndpoint: "https://idp.example/token",
			IdPClientID: "i", IDTokenEnv: "ID"}, Elicitation: "ask", Sampling: "deny"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("servers\n%+v\nwant\n%+v", got, want)
	}
}

// TestTokenDirDenied: the OAuth tokens are kept where the sandbox keeps
// every command from reading.
func TestTokenDirDenied(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/data"}
	getenv := func(k string) string { return env[k] }
	dir := TokenDir(getenv)
	if dir != "/data/lathe/mcp-oauth" {
		t.Fatalf("TokenDir = %q", dir)
	}
	p := policy(config.Defaults(), "/work", getenv)
	if !slices.ContainsFunc(p.ReadDeny, func(d string) bool { return d != "" && strings.HasPrefix(dir+"/", d+"/") }) {
		t.Errorf("%s is readable in the sandbox: deny list %q", dir, p.ReadDeny)
	}
}

// TestPythonSafePath: a python server of the user's own that takes its
// program from -m or -c, started in the workspace, does not import from
// it; one that sets PYTHONSAFEPATH, runs a script, starts elsewhere or is
// the project's, is left as configured.
func TestPythonSafePath(t *testing.T) {
	got := mcpServers(config.MCP{Servers: map[string]config.MCPServer{
		"m":      {Command: "python3", Args: []string{"-m", "srv"}},
		"c":      {Command: "/usr/bin/python3.12", Args: []string{"-c", "import srv"}, Env: map[string]string{"A": "1"}},
		"set":    {Command: "python3", Args: []string{"-m", "srv"}, Env: map[string]string{"PYTHONSAFEPATH": ""}},
		"script": {Command: "python3", Args: []string{"/opt/srv.py"}},
		"away":   {Command: "python3", Args: []string{"-m", "srv"}, Cwd: "/opt"},
		"proj":   {Command: "python3", Args: []string{"-m", "srv"}, Origin: "/p/.mcp.json"},
	}}, "/p")
	for name, want := range map[string]string{"m": "1", "c": "1", "set": "", "script": "", "away": "", "proj": ""} {
		if v := got[name].Env["PYTHONSAFEPATH"]; v != want {
			t.Errorf("%s: PYTHONSAFEPATH=%q, want %q", name, v, want)
		}
	}
	if got["c"].Env["A"] != "1" {
		t.Errorf("the server's own env lost: %v", got["c"].Env)
	}
}
