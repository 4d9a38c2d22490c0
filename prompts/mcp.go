package prompts

import (
	"strings"
	"time"
)

// MCPSearchDescription describes mcp_search, naming the servers it
// searches.
func MCPSearchDescription(servers []string) string { return note("mcp_search_desc", servers) }

// MCPSearchQuery describes mcp_search's query.
func MCPSearchQuery() string { return note("mcp_search_query", nil) }

// MCPCallDescription describes mcp_call.
func MCPCallDescription() string { return note("mcp_call_desc", nil) }

// MCPCallTool describes mcp_call's tool argument.
func MCPCallTool() string { return note("mcp_call_tool", nil) }

// MCPCallArguments describes mcp_call's arguments argument.
func MCPCallArguments() string { return note("mcp_call_arguments", nil) }

// MCPTool is a tool as mcp_search shows it.
type MCPTool struct {
	Name, Description string
	Schema            string // JSON
}

// MCPSearchResult lists the tools mcp_search found.
func MCPSearchResult(found []MCPTool) string { return note("mcp_search_result", found) }

// MCPSearchNone says that nothing matched query, naming every tool.
func MCPSearchNone(query string, names []string) string {
	return note("mcp_search_none", struct {
		Query string
		Names []string
	}{query, names})
}

// MCPUnknownTool answers mcp_call with a name no tool has.
func MCPUnknownTool(name string) string { return note("mcp_unknown_tool", name) }

// MCPNotReadOnly answers mcp_call, in a mode that only reads, with a tool
// that may change things.
func MCPNotReadOnly(name string) string { return note("mcp_not_read_only", name) }

// MCPServerDown answers a call to a server that is not running, saying why.
func MCPServerDown(server, why string) string {
	return note("mcp_server_down", struct{ Server, Why string }{server, why})
}

// MCPTimeout answers a call that took longer than its limit.
func MCPTimeout(limit time.Duration) string { return note("mcp_timeout", limit) }

// MCPFailed answers a call the server could not run (a protocol error).
func MCPFailed(server, err string) string {
	return note("mcp_failed", struct{ Server, Err string }{server, err})
}

// MCPResource is a resource an @server:uri mention of the user's prompt
// names, as the prompt carries it after its text.
func MCPResource(server, uri, text string) string {
	return note("mcp_resource", struct{ Server, URI, Text string }{server, uri, strings.TrimRight(text, "\n")})
}

// MCPPage is a page a server needs the user to open, and whether the user
// said they would.
type MCPPage struct {
	URL    string
	Opened bool
}

// MCPOpenFirst answers a call the server runs only once the user opened
// pages (a URL elicitation sent as an error).
func MCPOpenFirst(server string, pages []MCPPage) string {
	return note("mcp_open_first", struct {
		Server string
		Pages  []MCPPage
	}{server, pages})
}
