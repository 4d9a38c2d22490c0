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

func TestMCPOAuth(t *testing.T) {
	user := `[mcp.servers.docs]
url = "https://docs.example.com/mcp"

[mcp.servers.docs.oauth]
client_id = "lathe-cli"
client_secret_env = "DOCS_SECRET"
client_metadata_url = "https://lathe.example/client.json"

[mcp.servers.bot]
url = "https://bot.example.com/mcp"
oauth = { grant = "client_credentials", client_id = "ci", private_key_file = "/keys/ci.pem", signing_algorithm = "ES256" }

[mcp.servers.corp]
url = "https://corp.example.com/mcp"
[mcp.servers.corp.oauth]
grant = "cross_app_access"
client_id = "lathe"
idp_issuer = "https://idp.example.com"
idp_client_id = "lathe-at-idp"
id_token_env = "ID_TOKEN"

[mcp.servers.plain]
url = "https://plain.example.com/mcp"
`
	l, err := Load(setup(t, user, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	s := l.MCP.Servers
	if o := s["docs"].OAuth; o == nil || o.ClientID != "lathe-cli" || o.ClientSecretEnv != "DOCS_SECRET" ||
		o.ClientMetadataURL != "https://lathe.example/client.json" || o.GrantOrDefault() != GrantAuthorizationCode {
		t.Errorf("docs.oauth = %+v", o)
	}
	if o := s["bot"].OAuth; o == nil || o.Grant != GrantClientCredentials || o.PrivateKeyFile != "/keys/ci.pem" || o.SigningAlgorithm != "ES256" {
		t.Errorf("bot.oauth = %+v", o)
	}
	if o := s["corp"].OAuth; o == nil || o.IdPIssuer != "https://idp.example.com" || o.IdPClientID != "lathe-at-idp" || o.IDTokenEnv != "ID_TOKEN" {
		t.Errorf("corp.oauth = %+v", o)
	}
	if s["plain"].OAuth != nil {
		t.Errorf("plain.oauth = %+v, want nil: no table", s["plain"].OAuth)
	}
}

func TestMCPOAuthErrors(t *testing.T) {
	const srv = "[mcp.servers.x]\nurl = \"https://h.example/mcp\"\n[mcp.servers.x.oauth]\n"
	for _, tc := range []struct {
		name, user, want string
	}{
		{"stdio", "[mcp.servers.x]\ncommand = \"a\"\noauth = { client_id = \"c\" }\n", "mcp.servers.x.oauth: goes with url"},
		{"with bearer", "[mcp.servers.x]\nurl = \"https://h/\"\nbearer_token_env = \"T\"\noauth = { client_id = \"c\" }\n",
			"mcp.servers.x.oauth: the server already gets a token"},
		{"grant", srv + "grant = \"password\"\n", `mcp.servers.x.oauth.grant: must be "authorization_code", "client_credentials" or "cross_app_access"`},
		{"secret alone", srv + "client_secret_env = \"S\"\n", "mcp.servers.x.oauth.client_secret_env: goes with client_id"},
		{"secret env name", srv + "client_id = \"c\"\nclient_secret_env = \"s3cr3t value\"\n",
			`mcp.servers.x.oauth.client_secret_env: "s3cr3t value" is not an environment variable's name`},
		{"metadata http", srv + "client_metadata_url = \"http://lathe.example/c.json\"\n", "mcp.servers.x.oauth.client_metadata_url: \"http://lathe.example/c.json\" is not an https URL with a path"},
		{"metadata root", srv + "client_metadata_url = \"https://lathe.example/\"\n", "is not an https URL with a path"},
		{"key with code", srv + "client_id = \"c\"\nprivate_key_file = \"/k.pem\"\n", "mcp.servers.x.oauth.private_key_file: goes with grant"},
		{"key relative", srv + "grant = \"client_credentials\"\nclient_id = \"c\"\nprivate_key_file = \"k.pem\"\n", `"k.pem" is not an absolute path`},
		{"key and secret", srv + "grant = \"client_credentials\"\nclient_id = \"c\"\nclient_secret_env = \"S\"\nprivate_key_file = \"/k.pem\"\n",
			"give client_secret_env or private_key_file, not both"},
		{"algorithm", srv + "grant = \"client_credentials\"\nclient_id = \"c\"\nprivate_key_file = \"/k.pem\"\nsigning_algorithm = \"HS256\"\n",
			"mcp.servers.x.oauth.signing_algorithm: must be one of RS256"},
		{"algorithm alone", srv + "signing_algorithm = \"ES256\"\n", "mcp.servers.x.oauth.signing_algorithm: goes with private_key_file"},
		{"credentials no client", srv + "grant = \"client_credentials\"\n", "mcp.servers.x.oauth.client_id: grant = \"client_credentials\" needs the client"},
		{"credentials no secret", srv + "grant = \"client_credentials\"\nclient_id = \"c\"\n", "needs client_secret_env or private_key_file"},
		{"idp without xaa", srv + "idp_issuer = \"https://idp/\"\n", `mcp.servers.x.oauth.idp_issuer: goes with grant = "cross_app_access"`},
		{"xaa no idp", srv + "grant = \"cross_app_access\"\nclient_id = \"c\"\n", "mcp.servers.x.oauth.idp_issuer: cross-app access needs the identity provider"},
		{"xaa no token", srv + "grant = \"cross_app_access\"\nclient_id = \"c\"\nidp_token_endpoint = \"https://idp/token\"\nidp_client_id = \"i\"\n",
			"mcp.servers.x.oauth.id_token_env: cross-app access needs"},
		{"xaa bad url", srv + "grant = \"cross_app_access\"\nclient_id = \"c\"\nidp_issuer = \"idp.example\"\nidp_client_id = \"i\"\nid_token_env = \"T\"\n",
			`mcp.servers.x.oauth.idp_issuer: "idp.example" is not an http or https URL`},
		{"unknown key", srv + "client_ids = \"abc\"\n", `mcp.servers.x.oauth.client_ids: unknown key (did you mean "mcp.servers.x.oauth.client_id"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(setup(t, tc.user, "", nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to hold %q", err, tc.want)
			}
		})
	}
}

// A project that changes only the oauth table of a user's server makes it
// the project's: it starts only once trusted.
func TestMCPOAuthProject(t *testing.T) {
	user := "[mcp.servers.docs]\nurl = \"https://docs.example/mcp\"\n"
	project := "[mcp.servers.docs.oauth]\ngrant = \"client_credentials\"\nclient_id = \"c\"\nclient_secret_env = \"AWS_SECRET_ACCESS_KEY\"\n"
	l, err := Load(setup(t, user, project, nil))
	if err != nil {
		t.Fatal(err)
	}
	if s := l.MCP.Servers["docs"]; !s.Project() || s.OAuth == nil {
		t.Errorf("docs = %+v: a project's oauth table did not make it the project's", s)
	}
}
