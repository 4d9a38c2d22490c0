package acp

import (
	"io"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestScreen: lines that are JSON objects pass as they came (blank ones
// dropped); the others are answered at once, the order of answers kept.
func TestScreen(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		``,
		`not json`,
		`  [1,2]  `,
		`{"jsonrpc":"2.0","method":"session/cancel"}  `,
		`{"trunc`,
	}, "\n")
	var out strings.Builder
	r, start, stop := screen(strings.NewReader(in), &lockedWriter{w: &out})
	defer stop()
	start()
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\"}\n"; string(passed) != want {
		t.Errorf("passed %q; want %q", passed, want)
	}
	if want := string(parseError) + string(invalidRequest) + string(parseError); out.String() != want {
		t.Errorf("answered %q; want %q", out.String(), want)
	}
}

// TestMCPServers: the editor's servers as lathe's config declares them,
// the user's own; SSE, unnamed and repeated ones refused.
func TestMCPServers(t *testing.T) {
	got, err := mcpServers([]sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "s", Command: "srv", Args: []string{"-v"}, Env: []sdk.EnvVariable{{Name: "K", Value: "v"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "h", Url: "http://127.0.0.1:9/mcp", Headers: []sdk.HttpHeader{{Name: "X-A", Value: "b"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, h := got["s"], got["h"]
	if s.Command != "srv" || len(s.Args) != 1 || s.Env["K"] != "v" || s.Origin != "" ||
		h.URL != "http://127.0.0.1:9/mcp" || h.Headers["X-A"] != "b" || h.Origin != "" || len(got) != 2 {
		t.Errorf("servers %+v", got)
	}
	for name, bad := range map[string][]sdk.McpServer{
		"sse":     {{Sse: &sdk.McpServerSseInline{Name: "e", Url: "http://x"}}},
		"unnamed": {{Stdio: &sdk.McpServerStdio{Command: "srv"}}},
		"twice":   {{Stdio: &sdk.McpServerStdio{Name: "a", Command: "x"}}, {Stdio: &sdk.McpServerStdio{Name: "a", Command: "y"}}},
	} {
		if _, err := mcpServers(bad); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
}
