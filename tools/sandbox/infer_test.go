package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestInfer(t *testing.T) {
	ws := t.TempDir()
	out := filepath.Join(filepath.Dir(ws), "elsewhere")
	secret := filepath.Join(filepath.Dir(ws), "secret")
	for _, d := range []string{out, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret+"/id_rsa", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: WorkspaceWrite, Workspace: ws, Writable: []string{"/tmp/w"}, ReadDeny: []string{secret, "/tmp/w/secret"}}
	w := func(target, by string) Blocked { return Blocked{Op: OpWrite, Target: target, By: by, Inferred: true} }
	// What ran, for the cases after a cd.
	commands := map[string]string{
		"after cd":                          "cd /opt && touch x",
		"after cd to a relative directory":  "cd link; touch f",
		"after cd into the workspace":       "cd sub && touch x",
		"after cd to a directory not known": "cd $D && touch x",
	}
	for _, tc := range []struct {
		name string
		line string
		want []Blocked
	}{
		{"touch", "touch: cannot touch '/etc/x': Permission denied", []Blocked{w("/etc/x", "touch")}},
		{"redirection", "bash: line 1: /etc/hosts: Permission denied", []Blocked{w("/etc/hosts", "bash")}},
		{"relative", "bash: line 1: ../up/f: Permission denied", []Blocked{w(filepath.Join(filepath.Dir(ws), "up/f"), "bash")}},
		{"through a symlink", "bash: link/f: Permission denied", []Blocked{w(out+"/f", "bash")}},
		{"unicode quotes", "mkdir: cannot create directory ‘/opt/d’: Permission denied", []Blocked{w("/opt/d", "mkdir")}},
		{"python", "PermissionError: [Errno 13] Permission denied: '/usr/lib/x'", []Blocked{w("/usr/lib/x", "PermissionError")}},
		{"go", "open /etc/y: permission denied", []Blocked{w("/etc/y", "")}},
		{"secret", "cat: " + secret + "/id_rsa: Permission denied", []Blocked{{Op: OpRead, Target: secret + "/id_rsa", By: "cat", Inferred: true}}},
		{"new file in a denied directory", "bash: " + secret + "/new: Permission denied", []Blocked{w(secret+"/new", "bash")}},
		{"next to a denied path", "bash: /tmp/w/f: Permission denied", []Blocked{w("/tmp/w/f", "bash")}},
		{"hard link", "ln: failed to create hard link 'h' => '/etc/passwd': Invalid cross-device link", []Blocked{
			{Op: OpWrite, Target: "/etc/passwd", By: "ln", Note: "link or rename across directories", Inferred: true}}},
		{"signal", "bash: line 1: kill: (1) - Operation not permitted", []Blocked{{Op: OpSignal, Target: "pid 1", Inferred: true}}},
		{"inside the workspace: not the sandbox", "touch: cannot touch 'x': Permission denied", nil},
		{"writable directory: not the sandbox", "touch: cannot touch '/tmp/w/d/x': Permission denied", nil},
		{"bash network redirection", "bash: /dev/tcp/1.2.3.4/80: Permission denied", nil},
		{"no path", "sudo: Operation not permitted", nil},
		{"after cd", "touch: cannot touch 'x': Permission denied", []Blocked{w("/opt/x", "touch")}},
		{"after cd to a relative directory", "touch: cannot touch 'f': Permission denied", []Blocked{w(out+"/f", "touch")}},
		{"after cd into the workspace", "touch: cannot touch 'x': Permission denied", nil},
		{"after cd to a directory not known", "touch: cannot touch 'x': Permission denied", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s errScanner
			_, _ = s.Write([]byte("unrelated line\n" + tc.line + "\n"))
			got := infer(p, s.Lines(), commands[tc.name])
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	if got := infer(Policy{Mode: Off, Workspace: ws}, []string{"touch: cannot touch '/etc/x': Permission denied"}, ""); got != nil {
		t.Errorf("mode off inferred %v", got)
	}
	ro := Policy{Mode: ReadOnly, Workspace: ws}
	if got := infer(ro, []string{"bash: x: Permission denied"}, ""); len(got) != 1 || got[0].Target != filepath.Join(ws, "x") {
		t.Errorf("read-only: %v", got)
	}
}

// TestErrScanner feeds lines in pieces, long lines and too many lines.
func TestErrScanner(t *testing.T) {
	var s errScanner
	for _, piece := range []string{"a: Perm", "ission denied\nok\n", "b: Operation not permitted"} {
		_, _ = s.Write([]byte(piece))
	}
	if got := s.Lines(); !slices.Equal(got, []string{"a: Permission denied", "b: Operation not permitted"}) {
		t.Errorf("lines %q", got)
	}
	var long errScanner
	_, _ = long.Write(make([]byte, 3*maxErrLine))
	_, _ = long.Write([]byte("Permission denied\n"))
	if got := long.Lines(); len(got) != 0 {
		t.Errorf("a refusal past the line limit was kept: %d lines", len(got))
	}
	var many errScanner
	for range 2 * maxErrLines {
		_, _ = many.Write([]byte("x: Permission denied\n"))
	}
	if got := many.Lines(); len(got) != maxErrLines {
		t.Errorf("%d lines kept", len(got))
	}
}

func TestBlockedString(t *testing.T) {
	for _, tc := range []struct {
		b    Blocked
		want string
	}{
		{Blocked{Op: OpWrite, Target: "/etc/hosts", By: "bash", Inferred: true}, "write to /etc/hosts by bash (from the error output)"},
		{Blocked{Op: OpNetwork, Target: "socket(AF_INET, SOCK_STREAM)", By: "curl"}, "network: socket(AF_INET, SOCK_STREAM) by curl"},
		{Blocked{Op: OpChange, Target: "/w/.git/config", Note: "put back as it was"}, "change to /w/.git/config (put back as it was)"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestKilledSummary(t *testing.T) {
	r := Report{Killed: []Process{{12, "sleep"}}, Survivors: []Process{{13, "stuck"}}}
	if got, want := r.KilledSummary(), "killed 1 process left running: sleep (pid 12); could not kill 1 process: stuck (pid 13)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (Report{}).KilledSummary(); got != "" {
		t.Errorf("nothing killed: %q", got)
	}
}
