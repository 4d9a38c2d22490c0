package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"lathe/config"
)

// TestPolicyKeepsLatheSecrets: commands read neither lathe's state (its
// log) nor the variables its config names as holding keys, nor those the
// user's own MCP servers are given; a project's server takes nothing away
// from them, and env_pass lets one through.
func TestPolicyKeepsLatheSecrets(t *testing.T) {
	home := t.TempDir()
	cfg := config.Defaults()
	cfg.APIKeyEnv = "LLAMA_KEY_VAR"
	cfg.Hosts = []config.Host{{APIKeyEnv: "HOST_KEY_VAR"}}
	cfg.MCP.Servers = map[string]config.MCPServer{
		"docs": {URL: "https://docs.example.com", BearerTokenEnv: "DOCS_BEARER"},
		"db":   {Command: "db-mcp", Env: map[string]string{"DB_DSN": "x", "DB_HOST": "x", "PATH": "/opt/bin"}},
		"proj": {Command: "./mcp.sh", Env: map[string]string{"HOME": "/", "PROJ_VAR": "x"}, Origin: "/p/.mcp.json"},
	}
	cfg.Sandbox.EnvDeny = []string{"CORP_*"}
	cfg.Sandbox.EnvPass = []string{"DB_DSN"}
	p := policy(cfg, t.TempDir(), func(k string) string { return map[string]string{"HOME": home}[k] })
	if want := filepath.Join(home, ".local", "state", "lathe"); !slices.Contains(p.ReadDeny, want) {
		t.Errorf("read-deny lacks lathe's state directory %s: %v", want, p.ReadDeny)
	}
	for name, want := range map[string]bool{
		"LLAMA_KEY_VAR": true, "HOST_KEY_VAR": true, "DOCS_BEARER": true, "DB_HOST": true, "CORP_X": true,
		"DB_DSN": false, "PATH": false, "HOME": false, "PROJ_VAR": false,
	} {
		if got := p.Withheld(name); got != want {
			t.Errorf("%s withheld %v, want %v", name, got, want)
		}
	}
}

// TestSessionTemp: the commands' temp directory is made once for the
// session, so that what one command leaves there the next finds, and
// removed when the session ends.
func TestSessionTemp(t *testing.T) {
	tmp := t.TempDir()
	cfg := config.Defaults()
	conf, _ := Confinement(cfg, t.TempDir(), func(k string) string { return map[string]string{"TMPDIR": tmp}[k] })
	dir := conf.Policy.TempDir
	if filepath.Dir(dir) != tmp {
		t.Fatalf("temp directory %q, want one beneath %s", dir, tmp)
	}
	e := &Engine{}
	e.keepTemp(conf)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("temp directory not made private: %v, %v", fi, err)
	}
	e.Close()
	if _, err := os.Stat(dir); err == nil {
		t.Error("temp directory left after the session")
	}
}

// TestPolicyPathsClean: paths from the config are compared cleaned: a
// writable directory written with a trailing slash is writable all the
// same.
func TestPolicyPathsClean(t *testing.T) {
	cfg := config.Defaults()
	cfg.Sandbox.Writable = []string{"/opt/cache/"}
	cfg.Sandbox.ReadableDeny = []string{"/srv/keys/../keys/"}
	p := policy(cfg, t.TempDir(), func(string) string { return "" })
	if !slices.Contains(p.Writable, "/opt/cache") || !slices.Contains(p.ReadDeny, "/srv/keys") {
		t.Errorf("writable %v, read-deny %v", p.Writable, p.ReadDeny)
	}
}
