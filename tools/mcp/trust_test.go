package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lathe/config"
)

func TestTrust(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe", TrustFileName)
	servers := map[string]config.MCPServer{"db": {Command: "db-mcp", Origin: "/p/.lathe/config.toml"}}
	if ok, err := Trusted(path, "/p", servers); ok || err != nil {
		t.Fatalf("no file: %v %v", ok, err)
	}
	if err := Trust(path, "/p", servers, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Trusted(path, "/p", servers); !ok {
		t.Error("not trusted after Trust")
	}
	if ok, _ := Trusted(path, "/elsewhere", servers); ok {
		t.Error("another directory trusted")
	}
	changed := map[string]config.MCPServer{"db": {Command: "db-mcp", Args: []string{"--evil"}, Origin: "/p/.lathe/config.toml"}}
	if ok, _ := Trusted(path, "/p", changed); ok {
		t.Error("servers changed since, still trusted")
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"version": 1`) || !strings.Contains(string(b), `"names": [`) {
		t.Errorf("file:\n%s", b)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Trusted(path, "/p", servers); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("a damaged file: %v", err)
	}
}
