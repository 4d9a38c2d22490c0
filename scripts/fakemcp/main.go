// Command fakemcp is lathe's test MCP server (tools/mcp/mcptest) as a
// program speaking MCP on stdin and stdout, for demos and benchmarks:
//
//	[mcp.servers.fake]
//	command = "fakemcp"
//
// The environment shapes it: MCPTEST_PADDING, MCPTEST_START, MCPTEST_CALLS,
// MCPTEST_CANCELLED, MCPTEST_STARTED (see mcptest.Main).
package main

import "lathe/tools/mcp/mcptest"

func main() { mcptest.Main() }
