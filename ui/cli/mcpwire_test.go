package cli

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
// once its first frame is out (tui's TestMCPStartsAfterTheFirstFrame).
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
		cmd := command{oneShot: c.oneShot, env: newEnv(nil)}
		e := &engine{}
		if err := cmd.wireMCP(t.Context(), e, loaded, t.TempDir(), zerolog.Nop()); err != nil {
			t.Fatal(err)
		}
		e.mcp.WaitStarted(t.Context())
		if got := e.mcp.Servers()[0].State; got != c.want {
			t.Errorf("%s: the server is %s once wired, want %s", c.name, got, c.want)
		}
		e.mcp.Close()
	}
}
