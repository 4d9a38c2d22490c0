package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPServers(t *testing.T) {
	user := `[mcp.servers.github]
command = "github-mcp"
args = ["stdio"]
env = { GITHUB_TOOLSETS = "repos" }
tools = ["get_issue"]
approve = "always"

[mcp.servers.docs]
url = "https://docs.example.com/mcp"
headers = { X-Team = "core" }
bearer_token_env = "DOCS_TOKEN"
timeout = "5s"
enabled = false
read_only_hint = false
`
	l, err := Load(setup(t, user, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	gh, docs := l.MCP.Servers["github"], l.MCP.Servers["docs"]
	if gh.Command != "github-mcp" || gh.Args[0] != "stdio" || gh.Env["GITHUB_TOOLSETS"] != "repos" ||
		gh.Tools[0] != "get_issue" || gh.Approve != "always" || !gh.On() || gh.Project() || gh.Transport() != "stdio" {
		t.Errorf("github = %+v", gh)
	}
	if gh.CallTimeout() != DefaultMCPTimeout || !gh.HonoursReadOnly() {
		t.Errorf("github defaults: timeout %v, read-only hint %v", gh.CallTimeout(), gh.HonoursReadOnly())
	}
	if docs.URL == "" || docs.Headers["X-Team"] != "core" || docs.BearerTokenEnv != "DOCS_TOKEN" ||
		docs.CallTimeout() != 5*time.Second || docs.On() || docs.HonoursReadOnly() || docs.Transport() != "http" {
		t.Errorf("docs = %+v", docs)
	}
	if l.MCP.Budget != 0.1 {
		t.Errorf("budget = %v, want the default 0.1", l.MCP.Budget)
	}
}

func TestMCPServerErrors(t *testing.T) {
	for _, tc := range []struct {
		name, user, want string
	}{
		{"neither command nor url", "[mcp.servers.x]\nargs = [\"a\"]\n", "mcp.servers.x.command: say how to reach the server"},
		{"both", "[mcp.servers.x]\ncommand = \"a\"\nurl = \"http://h/\"\n", "mcp.servers.x.url: give command or url, not both"},
		{"bad approve", "[mcp.servers.x]\ncommand = \"a\"\napprove = \"never\"\n", `mcp.servers.x.approve: must be "ask" or "always"`},
		{"bad name", "[mcp.servers.\"a__b\"]\ncommand = \"a\"\n", "mcp.servers.a__b: a server's name is"},
		{"not http", "[mcp.servers.x]\nurl = \"ftp://h/\"\n", `mcp.servers.x.url: "ftp://h/" is not an http or https URL`},
		{"token in config", "[mcp.servers.x]\nurl = \"https://h/\"\nheaders = { Authorization = \"Bearer abc\" }\n",
			"a token does not belong in a config file"},
		{"bad timeout", "[mcp.servers.x]\ncommand = \"a\"\ntimeout = \"2h\"\n", "mcp.servers.x.timeout: must be between 1s and 1h"},
		{"wrong type", "[mcp.servers.x]\ncommand = \"a\"\nargs = \"-v\"\n", `mcp.servers.x.args: must be a list of strings, not the string "-v"`},
		{"unknown key", "[mcp.servers.x]\ncommand = \"a\"\ncomand = \"b\"\n", `mcp.servers.x.comand: unknown key (did you mean "mcp.servers.x.command"?)`},
		{"budget", "[mcp]\nbudget = 0.9\n", "mcp.budget: must be between 0.01 and 0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(setup(t, tc.user, "", nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to hold %q", err, tc.want)
			}
		})
	}
}

// A project's servers are marked as the project's, to start only once
// trusted; a project may turn a server of the user off, or narrow its
// tools, without that; it may never approve its own calls.
func TestMCPProjectServers(t *testing.T) {
	user := "[mcp.servers.mine]\ncommand = \"mine\"\n\n[mcp.servers.other]\ncommand = \"other\"\n" +
		"[mcp.servers.third]\ncommand = \"third\"\ntools = [\"a\", \"b\"]\n"
	project := "[mcp.servers.theirs]\ncommand = \"theirs\"\napprove = \"always\"\n\n" +
		"[mcp.servers.other]\nargs = [\"--evil\"]\n\n" +
		"[mcp.servers.mine]\nenabled = false\n\n[mcp.servers.third]\ntools = [\"a\"]\n"
	l, err := Load(setup(t, user, project, nil))
	if err != nil {
		t.Fatal(err)
	}
	s := l.MCP.Servers
	if !s["theirs"].Project() || !s["other"].Project() {
		t.Errorf("declared or changed by the project, not marked: theirs %+v, other %+v", s["theirs"], s["other"])
	}
	if s["mine"].Project() || s["mine"].On() || s["third"].Project() || len(s["third"].Tools) != 1 {
		t.Errorf("turned off or narrowed by the project: mine %+v, third %+v", s["mine"], s["third"])
	}
	if s["theirs"].Approve == "always" {
		t.Error("a project approved its own server's calls")
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "mcp.servers.theirs.approve ignored") {
		t.Errorf("warnings = %q", l.Warnings)
	}
	if got := len(l.MCP.ProjectServers()); got != 2 {
		t.Errorf("ProjectServers has %d, want 2", got)
	}
}

func TestDotMCP(t *testing.T) {
	src := setup(t, "[mcp.servers.same]\ncommand = \"mine\"\n", "", map[string]string{"TOKEN": "t0k"})
	doc := `{"mcpServers": {
  "fs": {"command": "npx", "args": ["-y", "server-fs", "${HOME_DIR:-/tmp}"], "env": {"K": "${TOKEN}"}},
  "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
  "old": {"type": "sse", "url": "https://example.com/sse"},
  "same": {"command": "theirs"}
}}`
	if err := os.WriteFile(filepath.Join(src.ProjectDir, ".mcp.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	fs, web := l.MCP.Servers["fs"], l.MCP.Servers["web"]
	if fs.Command != "npx" || fs.Args[2] != "/tmp" || fs.Env["K"] != "t0k" || !fs.Project() {
		t.Errorf("fs = %+v", fs)
	}
	if web.URL != "https://example.com/mcp" || web.Headers["Authorization"] != "Bearer t0k" || !web.Project() {
		t.Errorf("web = %+v", web)
	}
	if _, ok := l.MCP.Servers["old"]; ok {
		t.Error("an SSE server was taken")
	}
	if same := l.MCP.Servers["same"]; same.Command != "mine" || same.Project() {
		t.Errorf("same = %+v: .mcp.json overrode the config", same)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "server old left out") {
		t.Errorf("warnings = %q", l.Warnings)
	}
	if err := os.WriteFile(filepath.Join(src.ProjectDir, ".mcp.json"), []byte(`{"mcpServers": {"x": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(src); err == nil || !strings.Contains(err.Error(), ".mcp.json: mcpServers.x.command") {
		t.Errorf("a server without command nor url: err = %v", err)
	}
}

// TestServerDigest: the digest trust is given to covers every setting of
// a server and its name, and only the base name of where it was declared.
func TestServerDigest(t *testing.T) {
	on, off := true, false
	base := MCPServer{Command: "db-mcp", Origin: "/p/.lathe/config.toml"}
	want := ServerDigest("db", base)
	moved := base
	moved.Origin = "/elsewhere/.lathe/config.toml"
	if ServerDigest("db", moved) != want {
		t.Error("the digest follows the project's place")
	}
	if ServerDigest("db2", base) == want {
		t.Error("the digest misses the name")
	}
	for _, change := range []func(*MCPServer){
		func(s *MCPServer) { s.Command = "evil" },
		func(s *MCPServer) { s.Args = []string{"--evil"} },
		func(s *MCPServer) { s.Env = map[string]string{"A": "1"} },
		func(s *MCPServer) { s.Cwd = "sub" },
		func(s *MCPServer) { s.URL = "https://x" },
		func(s *MCPServer) { s.Headers = map[string]string{"X": "y"} },
		func(s *MCPServer) { s.BearerTokenEnv = "T" },
		func(s *MCPServer) { s.Enabled = &on },
		func(s *MCPServer) { s.Tools = []string{"x"} },
		func(s *MCPServer) { s.Timeout = Duration{90 * time.Second} },
		func(s *MCPServer) { s.Approve = "ask" },
		func(s *MCPServer) { s.ReadOnlyHint = &off },
		func(s *MCPServer) { s.Origin = "/p/.mcp.json" },
	} {
		s := base
		change(&s)
		if ServerDigest("db", s) == want {
			t.Errorf("a change to %+v left the digest", s)
		}
	}
}
