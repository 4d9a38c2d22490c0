package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/config"
)

// mcpServers are the MCP servers the client passes, as lathe's config
// declares servers: the user's own (no Origin), started without asking
// for trust, as those of the user's config are, under the same budget.
// SSE, which lathe does not advertise, is refused, as are unnamed
// servers and names given twice.
func mcpServers(servers []sdk.McpServer) (map[string]config.MCPServer, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	out := make(map[string]config.MCPServer, len(servers))
	for _, s := range servers {
		var name string
		var def config.MCPServer
		switch {
		case s.Stdio != nil:
			name = s.Stdio.Name
			def = config.MCPServer{Command: s.Stdio.Command, Args: s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				def.Env = make(map[string]string, len(s.Stdio.Env))
				for _, v := range s.Stdio.Env {
					def.Env[v.Name] = v.Value
				}
			}
		case s.Http != nil:
			name = s.Http.Name
			def = config.MCPServer{URL: s.Http.Url}
			if len(s.Http.Headers) > 0 {
				def.Headers = make(map[string]string, len(s.Http.Headers))
				for _, h := range s.Http.Headers {
					def.Headers[h.Name] = h.Value
				}
			}
		default:
			return nil, fmt.Errorf("MCP server: lathe speaks to MCP servers over stdio and HTTP only")
		}
		if name == "" {
			return nil, fmt.Errorf("an MCP server has no name")
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("MCP server %q is given twice", name)
		}
		out[name] = def
	}
	return out, nil
}
