//go:build linux

package sandbox_test

import (
	"path/filepath"
	"slices"
	"testing"

	"lathe/tools/sandbox"
)

func TestDefaultPolicy(t *testing.T) {
	e := newEnv(t)
	p := e.policy
	if p.Mode != sandbox.WorkspaceWrite || p.Network || p.Workspace != e.ws {
		t.Errorf("policy %+v", p)
	}
	for _, w := range []string{e.tmp, e.cache, goCache(), filepath.Join(e.cache, "mod")} {
		if !slices.Contains(p.Writable, w) {
			t.Errorf("writable lacks %s: %v", w, p.Writable)
		}
	}
	for _, s := range append(secrets, ".config/lathe") {
		top := filepath.Join(e.home, s)
		for !slices.Contains(p.ReadDeny, top) && top != e.home {
			top = filepath.Dir(top)
		}
		if top == e.home {
			t.Errorf("read-deny does not cover %s: %v", s, p.ReadDeny)
		}
	}
	if !slices.Contains(p.ReadDeny, e.data) {
		t.Errorf("read-deny lacks lathe's data directory")
	}
	for _, prot := range []string{".git/hooks", ".git/config"} {
		if !slices.Contains(p.Protected, filepath.Join(e.ws, prot)) {
			t.Errorf("protected lacks %s: %v", prot, p.Protected)
		}
	}
}

func TestDefaultPolicyEnvironment(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
		not  []string
	}{
		{"bare", nil, []string{"/tmp", home + "/.cache", home + "/go/pkg/mod"}, nil},
		{"gopath", map[string]string{"GOPATH": "/gp:/other"}, []string{"/gp/pkg/mod"}, []string{home + "/go/pkg/mod"}},
		{"relative values ignored", map[string]string{"TMPDIR": "tmp", "XDG_CACHE_HOME": "c", "GOCACHE": "gc"}, []string{"/tmp", home + "/.cache"}, []string{"tmp", "c", "gc"}},
		{"xdg", map[string]string{"XDG_CACHE_HOME": "/xc", "TMPDIR": "/t/"}, []string{"/xc", "/t"}, []string{home + "/.cache", "/tmp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := sandbox.DefaultPolicy(ws, home, func(k string) string { return tc.env[k] })
			for _, w := range tc.want {
				if !slices.Contains(p.Writable, w) {
					t.Errorf("writable lacks %s: %v", w, p.Writable)
				}
			}
			for _, w := range tc.not {
				if slices.Contains(p.Writable, w) {
					t.Errorf("writable has %s: %v", w, p.Writable)
				}
			}
		})
	}
}

func TestCommandValidates(t *testing.T) {
	for _, p := range []sandbox.Policy{
		{Mode: sandbox.WorkspaceWrite, Workspace: "rel"},
		{Mode: "full", Workspace: "/w"},
		{Mode: sandbox.Off, Workspace: "/w", Writable: []string{"rel"}},
	} {
		if _, err := sandbox.Command(t.Context(), exe(t), p, "true"); err == nil {
			t.Errorf("Command accepted %+v", p)
		}
	}
}

// TestMissingWorkspace: a command that cannot start is an error, not a
// report.
func TestMissingWorkspace(t *testing.T) {
	p := sandbox.Policy{Mode: sandbox.Off, Workspace: filepath.Join(t.TempDir(), "gone")}
	cmd, err := sandbox.Command(t.Context(), exe(t), p, "true")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Run(); err == nil {
		t.Error("ran in a missing workspace")
	}
}

// TestWithheld: the default policy keeps credentials out of a command's
// environment, and what the policy adds; EnvPass lets one through; mode
// Off keeps nothing back.
func TestWithheld(t *testing.T) {
	p := sandbox.DefaultPolicy(t.TempDir(), t.TempDir(), func(string) string { return "" })
	p.EnvDeny = append(p.EnvDeny, "CORP_*")
	p.EnvPass = []string{"GH_TOKEN"}
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "github_token": true, "OPENAI_API_KEY": true, "AWS_ACCESS_KEY_ID": true, "AWS_REGION": true,
		"AWS_SECRET_ACCESS_KEY": true, "PGPASSWORD": true, "MYSQL_PWD": true, "JWT_SECRET": true, "SSH_AUTH_SOCK": true,
		"GOOGLE_APPLICATION_CREDENTIALS": true, "NPM_CONFIG__AUTH": true, "CORP_DB": true,
		"OTEL_EXPORTER_OTLP_HEADERS": true, "OTEL_EXPORTER_OTLP_TRACES_HEADERS": true, "OTEL_EXPORTER_OTLP_ENDPOINT": false,
		"GH_TOKEN": false, "PATH": false, "HOME": false, "PWD": false, "OLDPWD": false, "TOKENIZERS_PARALLELISM": false,
		"GOFLAGS": false, "KEYMAP": false, "TERM": false,
	} {
		if got := p.Withheld(name); got != want {
			t.Errorf("%s withheld %v, want %v", name, got, want)
		}
	}
	p.Mode = sandbox.Off
	if p.Withheld("GITHUB_TOKEN") {
		t.Error("mode off withholds a variable")
	}
}

func TestEnvMatch(t *testing.T) {
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite}
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*TOKEN", "GH_TOKEN", true}, {"*TOKEN", "token", true}, {"*TOKEN", "TOKENS", false},
		{"*SECRET*", "SECRET", true}, {"*SECRET*", "aws_secret_access_key", true}, {"*SECRET*", "SECRE", false},
		{"AWS_*", "AWS_", true}, {"AWS_*", "XAWS_A", false}, {"A*B*C", "AxxBxxC", true}, {"A*B*C", "AxxCxxB", false},
		{"A*B*C", "ABC", true}, {"PATH", "path", true}, {"PATH", "PATHS", false}, {"*", "ANY", true},
		{"*_KEY", "_KEY", true}, {"*_KEY", "KEY", false},
	} {
		p.EnvDeny = []string{tc.pattern}
		if got := p.Withheld(tc.name); got != tc.want {
			t.Errorf("%q matches %q: %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}
