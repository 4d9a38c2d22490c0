package cli

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestACPRegistryManifest: packaging/acp/agent.json has the shape the ACP
// Registry's agent.schema.json asks for (its required fields, an id and a
// version of the right form, platforms it knows, each with an archive and
// a command), runs lathe acp on every platform, and its icon is
// monochrome (currentColor), as the registry's CI checks.
func TestACPRegistryManifest(t *testing.T) {
	data, err := os.ReadFile("../../packaging/acp/agent.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ID, Name, Version, Description, Repository string
		Distribution                               map[string]map[string]struct {
			Archive, Cmd string
			Args         []string
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	switch {
	case !regexp.MustCompile(`^[a-z][a-z0-9-]*$`).MatchString(m.ID):
		t.Errorf("id %q", m.ID)
	case !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+`).MatchString(m.Version):
		t.Errorf("version %q", m.Version)
	case m.Name == "" || m.Description == "":
		t.Errorf("name %q, description %q", m.Name, m.Description)
	case len(m.Distribution) != 1 || len(m.Distribution["binary"]) == 0:
		t.Errorf("distribution %v: want binaries", m.Distribution)
	}
	platforms := []string{"darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"}
	for p, target := range m.Distribution["binary"] {
		if !slices.Contains(platforms, p) || !strings.HasPrefix(target.Archive, "https://") || target.Cmd == "" ||
			!slices.Equal(target.Args, []string{"acp"}) {
			t.Errorf("%s: %+v", p, target)
		}
	}
	if _, err := parse(&Factory{}, []string{"acp"}); err != nil {
		t.Errorf("lathe acp: %v", err)
	}
	icon, err := os.ReadFile("../../packaging/acp/icon.svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, fill := range regexp.MustCompile(`fill="([^"]*)"`).FindAllStringSubmatch(string(icon), -1) {
		if fill[1] != "currentColor" && fill[1] != "none" {
			t.Errorf("icon fill %q: the registry takes currentColor or none", fill[1])
		}
	}
}
