package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLSPServers(t *testing.T) {
	user := `[lsp.gopls]
env = { GOFLAGS = "-tags=integration" }

[lsp.clangd]
enabled = false

[lsp.zls]
command = "zls"
extensions = [".zig"]
root_markers = ["build.zig"]

[diagnostics]
wait = "5s"
warnings = true
`
	project := `[lsp.pyright]
enabled = false

[lsp.mine]
command = "./tools/ls"
extensions = [".mine"]

[navigation]
enabled = true
wait = "40s"
`
	src := setup(t, user, project, nil)
	dot := `{"go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}},
	         "zls": {"command": "other"},
	         "remote": {"command": "x", "transport": "socket", "extensionToLanguage": {".x": "x"}}}`
	if err := os.WriteFile(filepath.Join(src.ProjectDir, DotLSPFile), []byte(dot), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if g := l.LSP["gopls"]; g.Env["GOFLAGS"] != "-tags=integration" || g.Project() || !g.On() {
		t.Errorf("gopls = %+v", g)
	}
	if c := l.LSP["clangd"]; c.On() {
		t.Errorf("clangd = %+v, want off", c)
	}
	if z := l.LSP["zls"]; z.Command != "zls" || z.Project() {
		t.Errorf("zls = %+v: the user's own, not .lsp.json's", z)
	}
	if p := l.LSP["pyright"]; p.On() || p.Project() {
		t.Errorf("pyright = %+v: a project turning a server off needs no trust", p)
	}
	if m := l.LSP["mine"]; !m.Project() {
		t.Errorf("mine = %+v: the project's", m)
	}
	if g := l.LSP["go"]; !g.Project() || g.Languages[".go"] != "go" || g.Extensions[0] != ".go" || g.Args[0] != "serve" {
		t.Errorf(".lsp.json's go = %+v", g)
	}
	if _, ok := l.LSP["remote"]; ok || !strings.Contains(strings.Join(l.Warnings, "\n"), "server remote left out") {
		t.Errorf("a socket server was kept, or not warned about: %q", l.Warnings)
	}
	if l.Diagnostics.Wait.Duration != 5*time.Second || !l.Diagnostics.Warnings {
		t.Errorf("diagnostics = %+v", l.Diagnostics)
	}
	if !l.Navigation.Enabled {
		t.Error("a project's [navigation] enabled = true was not taken: read-only tools loosen nothing")
	}
	if l.Navigation.Wait.Duration != 40*time.Second {
		t.Errorf("navigation wait %v, want the project's 40s", l.Navigation.Wait.Duration)
	}
}

func TestLSPDefaults(t *testing.T) {
	l, err := Load(setup(t, "", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if l.Diagnostics.Wait.Duration != DefaultDiagnosticsWait || l.Diagnostics.Warnings || len(l.LSP) != 0 || l.Navigation.Enabled ||
		l.Navigation.Wait.Duration != DefaultNavigationWait {
		t.Errorf("defaults: %+v %+v %+v", l.Diagnostics, l.LSP, l.Navigation)
	}
}

func TestLSPErrors(t *testing.T) {
	for _, tc := range []struct{ name, user, want string }{
		{"no command", "[lsp.zls]\nextensions = [\".zig\"]\n", "lsp.zls.command: say which program to start"},
		{"no extensions", "[lsp.zls]\ncommand = \"zls\"\n", "lsp.zls.extensions: say which files it serves"},
		{"bad extension", "[lsp.gopls]\nextensions = [\"go\"]\n", `lsp.gopls.extensions: "go" is not an extension`},
		{"bad wait", "[diagnostics]\nwait = \"2m\"\n", "diagnostics.wait: must be between 0 (no wait) and 1m"},
		{"bad navigation wait", "[navigation]\nwait = \"0s\"\n", "navigation.wait: must be between 1s and 2m"},
		{"wrong type", "[lsp.gopls]\nargs = \"serve\"\n", "lsp.gopls.args: must be a list of strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(setup(t, tc.user, "", nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
