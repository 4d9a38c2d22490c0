package engine

import (
	"reflect"
	"testing"
	"time"

	"lathe/config"
	"lathe/tools/mcp"
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
	}})
	want := map[string]mcp.Server{
		"fs": {Command: "fs-mcp", Args: []string{"--ro"}, Env: map[string]string{"A": "1"}, Cwd: "sub",
			Off: true, Tools: []string{"read"}, Timeout: 90 * time.Second, Preapproved: true, IgnoreReadOnly: true, Project: true,
			Elicitation: "accept", Sampling: "allow"},
		"docs": {URL: "https://docs.example/mcp", Headers: map[string]string{"X-Team": "core"}, BearerTokenEnv: "DOCS_TOKEN",
			Timeout: config.DefaultMCPTimeout, Elicitation: "ask", Sampling: "deny"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("servers\n%+v\nwant\n%+v", got, want)
	}
}
