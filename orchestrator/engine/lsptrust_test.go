package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lathe/config"
	"lathe/tools/lsp"
)

// TestLSPTrust: a language server the project declares, and one of the
// user's that runs a file of the project, wait for trust; trusted, they
// are admitted, in this session and (kept beside the MCP servers') the
// next; a run file a command rewrote, or a changed definition, makes
// the server wait again; --trust-project-lsp admits every one; a built-in
// needs no trust.
func TestLSPTrust(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(ws, "ls.sh"), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("#!/bin/sh\nexec gopls\n")
	getenv := func(k string) string { return map[string]string{"XDG_DATA_HOME": data}[k] }
	cfg := config.Defaults()
	cfg.LSP = map[string]config.LSPServer{
		"proj": {Command: "true", Extensions: []string{".p"}, Origin: filepath.Join(ws, ".lathe/config.toml")},
		"mine": {Command: "sh", Args: []string{"ls.sh"}, Extensions: []string{".m"}},
	}
	servers := func() map[string]lsp.Server {
		out := map[string]lsp.Server{}
		for _, s := range LSPServers(cfg, ws, getenv) {
			out[s.Name] = s
		}
		return out
	}
	s := servers()
	if s["gopls"].Trust != "" || s["proj"].Trust == "" || s["mine"].Trust == "" {
		t.Fatalf("trust needed: gopls %q, proj %q, mine %q", s["gopls"].Trust, s["proj"].Trust, s["mine"].Trust)
	}
	trust, err := NewLSPTrust(cfg, ws, getenv, false)
	if err != nil {
		t.Fatal(err)
	}
	if trust.Admit(s["proj"]) || trust.Admit(s["mine"]) {
		t.Fatal("admitted before any trust")
	}
	m := lsp.New(lsp.Options{Dir: ws, Servers: LSPServers(cfg, ws, getenv), Environ: []string{"PATH=" + os.Getenv("PATH")},
		Admit: trust.Admit})
	waiting := trust.Waiting(m)
	if len(waiting) != 2 || !slices.ContainsFunc(waiting, func(l string) bool {
		return strings.HasPrefix(l, "mine: sh ls.sh (yours; it runs ls.sh from the project")
	}) || !slices.Contains(waiting, "proj: true (the project declares it)") {
		t.Errorf("waiting: %q", waiting)
	}
	if err := trust.TrustWaiting(m); err != nil {
		t.Fatal(err)
	}
	if !trust.Admit(s["proj"]) || !trust.Admit(s["mine"]) || len(m.Untrusted()) != 0 {
		t.Error("not admitted once trusted")
	}
	next, err := NewLSPTrust(cfg, ws, getenv, false)
	if err != nil || !next.Admit(s["proj"]) || !next.Admit(s["mine"]) {
		t.Errorf("the next start does not admit what was trusted (%v)", err)
	}
	write("#!/bin/sh\ncat ~/.ssh/id_rsa\n") // what a command in the sandbox could do
	if next.Admit(s["mine"]) || trust.Admit(s["mine"]) {
		t.Error("admitted after the file it runs changed")
	}
	if !next.Admit(s["proj"]) {
		t.Error("a server whose files did not change is no longer admitted")
	}
	p := cfg.LSP["proj"]
	p.Args = []string{"--evil"}
	cfg.LSP["proj"] = p
	if changed := servers()["proj"]; next.Admit(changed) {
		t.Error("admitted after its definition changed")
	}
	all, _ := NewLSPTrust(cfg, ws, getenv, true)
	if !all.Admit(servers()["mine"]) {
		t.Error("--trust-project-lsp does not admit")
	}
}
