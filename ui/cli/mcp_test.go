package cli

import (
	"strings"
	"testing"

	"lathe/config"
	"lathe/tools/mcp"
)

// TestMCPListColumns: the servers' lines of lathe mcp list are in
// columns, whatever the length of their names and targets (F16).
func TestMCPListColumns(t *testing.T) {
	var out strings.Builder
	list := []mcp.Status{
		{Name: "broken", Transport: "stdio", Target: "nothing-here", State: mcp.StateFailed, Why: "it stopped"},
		{Name: "calc", Transport: "stdio", Target: "fakemcp", State: mcp.StateReady},
		{Name: "web", Transport: "http", Target: "http://127.0.0.1:9/mcp", State: mcp.StateReady},
	}
	if err := writeMCPText(&out, list, config.Loaded{Config: config.Defaults()}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	col := func(l, word string) int { return strings.Index(l, word) }
	if c0, c1, c2 := col(lines[0], "stdio"), col(lines[1], "stdio"), col(lines[2], "http "); c0 != c1 || c1 != c2 {
		t.Errorf("transports at columns %d, %d, %d:\n%s", c0, c1, c2, out.String())
	}
	if c0, c1 := col(lines[0], "failed"), col(lines[1], "ready"); c0 != c1 {
		t.Errorf("states at columns %d, %d:\n%s", c0, c1, out.String())
	}
}
