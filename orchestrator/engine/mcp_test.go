package engine

import (
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/tools/mcp"
	"lathe/tools/mcp/mcptest"
)

// TestMCPStartedByWhoNeedsThem: a one-shot run and a subcommand start the
// MCP servers as they are wired; the interactive UI leaves that to itself,
// once its first frame is out (ui's TestMCPStartsAfterTheFirstFrame).
func TestMCPStartedByWhoNeedsThem(t *testing.T) {
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		name    string
		oneShot bool
		want    mcp.State
	}{{"interactive", false, mcp.StateOff}, {"one-shot", true, mcp.StateReady}} {
		loaded := config.Loaded{Config: config.Defaults()}
		loaded.MCP.Servers = map[string]config.MCPServer{"t": {URL: srv.URL}}
		m := NewMCP(t.Context(), loaded, MCPEnv{Dir: t.TempDir(), Getenv: func(string) string { return "" }, Log: zerolog.Nop(),
			Headless: c.oneShot})
		m.Manager.WaitStarted(t.Context())
		if got := m.Manager.Servers()[0].State; got != c.want {
			t.Errorf("%s: the server is %s once wired, want %s", c.name, got, c.want)
		}
		m.Manager.Close()
	}
}
