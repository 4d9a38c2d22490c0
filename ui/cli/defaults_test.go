package cli

import (
	"testing"

	"lathe/config"
	"lathe/tools"
	"lathe/tools/mcp"
)

// TestToolDefaultsAreTheConfigs: what the tools fall back to when they are
// given no limit is what the config sets by default, so that the tools
// that get no setting (tools.Func's: the modes' own, mcp_search) are capped
// as the others are.
func TestToolDefaultsAreTheConfigs(t *testing.T) {
	d := config.Defaults()
	if tools.DefaultOutputBytes != d.Limits.ToolOutputBytes {
		t.Errorf("tools.DefaultOutputBytes %d, limits.tool_output_bytes %d", tools.DefaultOutputBytes, d.Limits.ToolOutputBytes)
	}
	if mcp.DefaultBudget != d.MCP.Budget {
		t.Errorf("mcp.DefaultBudget %g, mcp.budget %g", mcp.DefaultBudget, d.MCP.Budget)
	}
}
