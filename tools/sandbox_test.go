//go:build linux

package tools

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lathe/tools/sandbox"
)

// sandboxed is a workspace with lathe's default sandbox policy around the
// shell tool, in a world of its own: a home with secrets, a cache, a
// temp directory and a directory outside everything.
type sandboxed struct {
	ws                        *Workspace
	opts                      Options
	home, outside, cache, tmp string
}

func newSandboxed(t *testing.T) *sandboxed {
	t.Helper()
	if s := sandbox.Probe(sandbox.ProbeOptions{}); !s.Confines() {
		t.Skip("this system cannot confine commands:", s.Reason)
	}
	base := t.TempDir()
	s := &sandboxed{home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside"),
		cache: filepath.Join(base, "home", ".cache"), tmp: filepath.Join(base, "tmp")}
	tree(t, base, map[string]string{
		"home/.ssh/id_ed25519":         secret + " ssh key\n",
		"home/.aws/credentials":        secret + " aws\n",
		"home/.netrc":                  secret + " netrc\n",
		"home/.docker/config.json":     secret + " docker\n",
		"home/.gnupg/private-keys":     secret + " gpg\n",
		"home/.config/gcloud/creds":    secret + " gcloud\n",
		"home/.local/share/lathe/x.db": secret + " lathe db\n",
		"home/.cache/":                 "",
		"tmp/":                         "",
		"outside/victim.txt":           "victim\n",
		"ws/main.go":                   "package main\n",
	})
	s.ws = openWorkspace(t, filepath.Join(base, "ws"))
	env := map[string]string{"HOME": s.home, "TMPDIR": s.tmp, "XDG_CACHE_HOME": s.cache, "PATH": os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
		"GIT_COMMITTER_EMAIL": "t@t"}
	getenv := func(k string) string { return env[k] }
	policy := sandbox.DefaultPolicy(s.ws.Dir(), s.home, getenv, filepath.Join(s.home, ".local/share/lathe"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s.opts = Options{Confinement: &Confinement{Exe: exe, Policy: policy}}
	for k, v := range env {
		s.opts.Env = append(s.opts.Env, k+"="+v)
	}
	return s
}

// shell runs command through the shell tool.
func (s *sandboxed) shell(t *testing.T, command string) Result {
	t.Helper()
	return run(t, s.ws, s.opts, "shell", jsonArgs(t, map[string]any{"command": command}))
}

// TestShellSandboxAttacks: commands the model might run to get out of the
// default sandbox, through the shell tool as lathe runs them. Each fails,
// its result says "blocked by the sandbox" and what, and leaves nothing
// behind; TestShellSandboxAllows has the legitimate counterparts.
func TestShellSandboxAttacks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command func(s *sandboxed) string
		blocked func(s *sandboxed) string // in the result, after "blocked by the sandbox: "
		check   func(t *testing.T, s *sandboxed, res Result)
	}{
		{name: "absolute path outside",
			command: func(s *sandboxed) string { return "echo x > " + s.outside + "/abs" },
			blocked: func(s *sandboxed) string { return "write to " + s.outside + "/abs" },
			check:   absentFile(func(s *sandboxed) string { return s.outside + "/abs" })},
		{name: "dot-dot",
			command: func(*sandboxed) string { return "echo x > ../outside/dotdot" },
			blocked: func(s *sandboxed) string { return "write to " + s.outside + "/dotdot" },
			check:   absentFile(func(s *sandboxed) string { return s.outside + "/dotdot" })},
		{name: "symlink planted inside",
			command: func(s *sandboxed) string { return "ln -s " + s.outside + " out && echo x > out/sym" },
			blocked: func(s *sandboxed) string { return "write to " + s.outside + "/sym" },
			check:   absentFile(func(s *sandboxed) string { return s.outside + "/sym" })},
		{name: "hard link",
			command: func(s *sandboxed) string { return "ln " + s.outside + "/victim.txt hard; echo pwned >> hard" },
			blocked: func(s *sandboxed) string { return "write to " + s.outside + "/victim.txt" },
			check: func(t *testing.T, s *sandboxed, _ Result) {
				if b, _ := os.ReadFile(s.outside + "/victim.txt"); string(b) != "victim\n" {
					t.Errorf("victim.txt holds %q", b)
				}
			}},
		{name: "/proc/self/root",
			command: func(s *sandboxed) string { return "echo x > /proc/self/root" + s.outside + "/proc" },
			blocked: func(s *sandboxed) string { return "write to " + s.outside + "/proc" },
			check:   absentFile(func(s *sandboxed) string { return s.outside + "/proc" })},
		{name: "cd / and touch",
			command: func(*sandboxed) string { return "cd / && touch lathe-shell-test-" + fmt.Sprint(os.Getpid()) },
			blocked: func(*sandboxed) string { return "write to /lathe-shell-test-" + fmt.Sprint(os.Getpid()) },
			check:   absentFile(func(*sandboxed) string { return "/lathe-shell-test-" + fmt.Sprint(os.Getpid()) })},
		{name: "ssh key", command: func(s *sandboxed) string { return "cat " + s.home + "/.ssh/id_ed25519" },
			blocked: func(s *sandboxed) string { return "read of " + s.home + "/.ssh/id_ed25519" }},
		{name: "aws credentials", command: func(s *sandboxed) string { return "cat ~/.aws/credentials" },
			blocked: func(s *sandboxed) string { return "read of " + s.home + "/.aws/credentials" }},
		{name: "netrc", command: func(s *sandboxed) string { return "cat ~/.netrc" },
			blocked: func(s *sandboxed) string { return "read of " + s.home + "/.netrc" }},
		{name: "docker config", command: func(s *sandboxed) string { return "cat ~/.docker/config.json" },
			blocked: func(s *sandboxed) string { return "read of " + s.home + "/.docker/config.json" }},
		{name: "gnupg", command: func(s *sandboxed) string { return "cat ~/.gnupg/private-keys" },
			blocked: func(s *sandboxed) string { return "read of " + s.home + "/.gnupg/private-keys" }},
		{name: "gcloud", command: func(s *sandboxed) string { return "cat ~/.config/gcloud/creds" },
			blocked: func(s *sandboxed) string { return "read of " + s.home + "/.config/gcloud/creds" }},
		{name: "lathe's database", command: func(s *sandboxed) string { return "cat ~/.local/share/lathe/x.db" },
			blocked: func(s *sandboxed) string { return "read of " + s.home + "/.local/share/lathe/x.db" }},
		{name: "tcp to a loopback listener",
			command: func(*sandboxed) string {
				return "exec 3<>/dev/tcp/127.0.0.1/" + listen(t, "tcp") + " && echo connected"
			},
			blocked: func(*sandboxed) string { return "network: socket(AF_INET, SOCK_STREAM)" },
			check:   notInOutput("connected")},
		{name: "udp",
			command: func(*sandboxed) string { return "echo hi > /dev/udp/127.0.0.1/" + listen(t, "udp") + " && echo sent" },
			blocked: func(*sandboxed) string { return "network: socket(AF_INET, SOCK_DGRAM)" },
			check:   notInOutput("sent")},
		{name: "unix socket of a service outside",
			command: func(*sandboxed) string {
				return "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"" + unixListener(t) + "\"); print(\"connected\")'"
			},
			blocked: func(*sandboxed) string { return "network: connect to " },
			check:   notInOutput("connected")},
		{name: "git hooks path",
			command: func(s *sandboxed) string { return "git config core.hooksPath evil-hooks" },
			blocked: func(*sandboxed) string { return "change to " },
			check: func(t *testing.T, s *sandboxed, _ Result) {
				if out, _ := exec.Command("git", "-C", s.ws.Dir(), "config", "core.hooksPath").Output(); len(out) > 0 {
					t.Errorf("core.hooksPath set: %s", out)
				}
			}},
		{name: "git hook planted",
			command: func(*sandboxed) string { return "echo 'touch /tmp/pwned' > .git/hooks/pre-commit" },
			blocked: func(*sandboxed) string { return "change to " },
			check:   absentFile(func(s *sandboxed) string { return s.ws.Dir() + "/.git/hooks/pre-commit" })},
		{name: "daemon left running",
			command: func(*sandboxed) string { return "setsid sleep 3600.4242 >/dev/null 2>&1 < /dev/null & echo started" },
			blocked: func(*sandboxed) string { return "" },
			check: func(t *testing.T, s *sandboxed, _ Result) {
				out, _ := exec.Command("pgrep", "-f", "^sleep 3600.4242").Output()
				if len(strings.TrimSpace(string(out))) > 0 {
					t.Errorf("the daemon outlived the command: pids %s", out)
				}
			}},
		{name: "signal a process outside",
			command: func(*sandboxed) string { return "kill -9 " + fmt.Sprint(outsideProcess(t)) },
			blocked: func(*sandboxed) string { return "signal to pid " }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandboxed(t)
			gitRepo(t, s.ws.Dir())
			res := s.shell(t, tc.command(s))
			if want := tc.blocked(s); want != "" && !strings.Contains(res.Content, "blocked by the sandbox: "+want) {
				t.Errorf("result does not say %q is blocked:\n%s", want, res.Content)
			}
			if want := tc.blocked(s); want != "" && !slices.ContainsFunc(res.Blocked, func(b string) bool { return strings.HasPrefix(b, want) }) {
				t.Errorf("Blocked %q lacks %q", res.Blocked, want)
			}
			// The daemon is named sleep, or setsid when killed before its exec.
			if tc.name == "daemon left running" && !strings.Contains(res.Content, "killed 1 process left running: ") {
				t.Errorf("result does not say the daemon was killed:\n%s", res.Content)
			}
			if leaked(res.Content) {
				t.Errorf("a secret leaked:\n%s", res.Content)
			}
			if tc.check != nil {
				tc.check(t, s, res)
			}
		})
	}
}

// TestShellSandboxAllows: the legitimate counterparts of the attacks work
// under the default policy: writing in the workspace, the temp and cache
// directories, building and testing Go code, committing.
func TestShellSandboxAllows(t *testing.T) {
	s := newSandboxed(t)
	gitRepo(t, s.ws.Dir())
	for _, command := range []string{
		"echo x > inside.txt && mkdir -p a/b && mv inside.txt a/b/ && rm a/b/inside.txt",
		"echo x > $TMPDIR/t && cat $TMPDIR/t",
		"echo x > $XDG_CACHE_HOME/c && rm $XDG_CACHE_HOME/c",
		"cat main.go && ls ~ >/dev/null",
		"git add -A && git commit -qm work && git log --oneline | wc -l",
	} {
		if res := s.shell(t, command); res.IsError || strings.Contains(res.Content, "blocked by the sandbox") || len(res.Blocked) > 0 {
			t.Errorf("%s:\n%s", command, res.Content)
		}
	}
	if _, err := exec.LookPath("go"); err == nil {
		goCache, _ := exec.Command("go", "env", "GOCACHE").Output()
		modCache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
		s.opts.Confinement.Policy.Writable = append(s.opts.Confinement.Policy.Writable,
			strings.TrimSpace(string(goCache)), strings.TrimSpace(string(modCache)))
		s.opts.Env = append(s.opts.Env, "GOCACHE="+strings.TrimSpace(string(goCache)),
			"GOMODCACHE="+strings.TrimSpace(string(modCache)), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		cmd := `printf 'module m\n\ngo 1.22\n' > go.mod && printf 'package main\n\nfunc main() {}\n' > main.go && ` +
			`printf 'package main\n\nimport "testing"\n\nfunc TestX(t *testing.T) {}\n' > main_test.go && go build ./... && go test ./...`
		if res := s.shell(t, cmd); res.IsError {
			t.Errorf("go build and test in the sandbox:\n%s", res.Content)
		}
	}
}

func absentFile(path func(*sandboxed) string) func(*testing.T, *sandboxed, Result) {
	return func(t *testing.T, s *sandboxed, _ Result) {
		if _, err := os.Lstat(path(s)); err == nil {
			t.Errorf("%s exists", path(s))
			os.Remove(path(s))
		}
	}
}

// notInOutput checks that the command did not get as far as printing out.
func notInOutput(out string) func(*testing.T, *sandboxed, Result) {
	return func(t *testing.T, _ *sandboxed, res Result) {
		if strings.Contains(res.Content, out+"\n") {
			t.Errorf("the command got through:\n%s", res.Content)
		}
	}
}

// listen opens a listener on loopback for the test and returns its port.
func listen(t *testing.T, network string) string {
	t.Helper()
	if network == "udp" {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return fmt.Sprint(c.LocalAddr().(*net.UDPAddr).Port)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// unixListener opens a Unix socket outside every writable directory.
func unixListener(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/run", "lathe-test-")
	if err != nil {
		dir = t.TempDir()
	} else {
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	p := filepath.Join(dir, "service.sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return p
}

// outsideProcess starts a process outside the sandbox for the test.
func outsideProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// gitRepo makes dir a git repository with one commit.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestShellEscalation: a call the user let out of the sandbox, or onto the
// network, runs so; the next call is confined again.
func TestShellEscalation(t *testing.T) {
	s := newSandboxed(t)
	target := s.outside + "/escalated"
	port := listen(t, "tcp")
	for _, tc := range []struct {
		name    string
		e       Escalation
		command string
		ok      func() bool
	}{
		{"outside the sandbox", Escalation{Unconfined: true}, "echo x > " + target,
			func() bool { _, err := os.Stat(target); return err == nil }},
		{"with network", Escalation{Network: true}, "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, _ := Default(s.ws, s.opts).Lookup("shell")
			call, err := tool.Prepare([]byte(jsonArgs(t, map[string]any{"command": tc.command})))
			if err != nil {
				t.Fatal(err)
			}
			sb, ok := AsSandboxed(call)
			if !ok || !sb.Confined() {
				t.Fatalf("the shell call is not sandboxed: %T", call)
			}
			sb.Escalate(tc.e)
			res, err := call.Run(t.Context(), Caller{})
			if err != nil || res.IsError || strings.Contains(res.Content, "blocked by the sandbox") {
				t.Fatalf("escalated call: %v\n%s", err, res.Content)
			}
			if tc.ok != nil && !tc.ok() {
				t.Error("the escalated call did not do what it was let do")
			}
			// The escalation was for that call only.
			if again := s.shell(t, tc.command); !strings.Contains(again.Content, "blocked by the sandbox") {
				t.Errorf("the next call was not confined:\n%s", again.Content)
			}
			os.Remove(target)
		})
	}
}
