package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTrust(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe", TrustFileName)
	const digest = "sha256:0123"
	if ok, err := Trusted(path, "/p", digest); ok || err != nil {
		t.Fatalf("no file: %v %v", ok, err)
	}
	if err := Trust(path, "/p", digest, []string{"fs", "db"}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Trusted(path, "/p", digest); !ok {
		t.Error("not trusted after Trust")
	}
	if ok, _ := Trusted(path, "/elsewhere", digest); ok {
		t.Error("another directory trusted")
	}
	if ok, _ := Trusted(path, "/p", "sha256:4567"); ok {
		t.Error("servers changed since, still trusted")
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"version": 1`) || !strings.Contains(string(b), `"names": [`+"\n"+`        "db",`) ||
		!strings.Contains(string(b), `"servers": "sha256:0123"`) {
		t.Errorf("file:\n%s", b)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Trusted(path, "/p", digest); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("a damaged file: %v", err)
	}
}
