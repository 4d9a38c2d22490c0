//go:build linux

package sandbox_test

import (
	"cmp"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lathe/tools/sandbox"
)

// TestLegitimate runs the everyday counterpart of each attack: it must
// work, and nothing may be reported blocked.
func TestLegitimate(t *testing.T) {
	requireSandbox(t)
	for _, tc := range []struct {
		name  string
		setup func(e *env) string
		check func(t *testing.T, e *env, r result)
	}{{
		name:  "write, rename and remove in the workspace",
		setup: func(*env) string { return "mkdir -p a/b && echo ok > a/b/f && mv a/b/f a/g && rm -r a/b && cat a/g" },
		check: stdout("ok\n"),
	}, {
		name: "write in temp and cache",
		setup: func(e *env) string {
			return "echo t > $TMPDIR/t && echo c > $XDG_CACHE_HOME/c && mv $TMPDIR/t ./t && cat t $XDG_CACHE_HOME/c"
		},
		check: stdout("t\nc\n"),
	}, {
		name: "devices and standard streams",
		setup: func(*env) string {
			return "echo x > /dev/null; echo y 2>/dev/null >/dev/stdout; head -c 3 /dev/zero | wc -c"
		},
		check: stdout("y\n3\n"),
	}, {
		name:  "read outside and list the home directory",
		setup: func(e *env) string { return "cat " + e.outside + "/victim.txt && ls -a ~ | grep -c ssh" },
		check: stdout("victim1\n"),
	}, {
		name:  "signal own processes",
		setup: func(*env) string { return "sleep 100 & kill $! && wait $!; echo $?" },
		check: stdout("143\n"),
	}, {
		name: "git commit in an existing repository",
		setup: func(e *env) string {
			gitInit(e.t, e.ws)
			return "echo a > a && git add a && git commit -qm second && git log --format=%s | head -1"
		},
		check: stdout("second\n"),
	}, {
		name: "git init and commit",
		setup: func(*env) string {
			return "git init -q && echo a > a && git add a && git commit -qm first && git log --format=%s"
		},
		check: func(t *testing.T, e *env, r result) {
			stdout("first\n")(t, e, r)
			if !exists(e.ws + "/.git/hooks/pre-commit.sample") {
				t.Error("git init's sample hooks were removed")
			}
		},
	}, {
		name: "modes but set-id",
		setup: func(*env) string {
			return "cp /bin/true t && chmod 700 t && chmod +x t && chmod o-x t && mkdir d && chmod 1777 d && stat -c %a t d"
		},
		check: stdout("710\n1777\n"),
	}, {
		name: "environment but credentials",
		setup: func(e *env) string {
			e.vars["BUILD_MODE"], e.vars["GH_TOKEN"], e.vars["NPM_TOKEN"] = "release", "let-through", "SECRET"
			e.policy.EnvPass = []string{"GH_TOKEN"}
			return `echo "$BUILD_MODE $GH_TOKEN $NPM_TOKEN" && test "$HOME" = ` + e.home + ` && command -v go >/dev/null && echo path`
		},
		check: stdout("release let-through \npath\n"),
	}, {
		name: "git repository deeper in temp, and in a workspace in temp",
		setup: func(e *env) string {
			e.ws = e.tmp + "/proj"
			mkdir(e.t, e.ws)
			e.policy = sandbox.DefaultPolicy(e.ws, e.home, e.getenv, e.data, e.config)
			return "git init -q && git init -q " + e.tmp + "/scratch/repo && cd " + e.tmp + "/scratch/repo && " +
				"echo a > a && git add a && git commit -qm first && git log --format=%s"
		},
		check: func(t *testing.T, e *env, r result) {
			stdout("first\n")(t, e, r)
			for _, d := range []string{e.ws + "/.git", e.tmp + "/scratch/repo/.git"} {
				if !exists(d) {
					t.Errorf("%s was removed", d)
				}
			}
		},
	}, {
		name: "go build",
		setup: func(e *env) string {
			writeFile(e.t, e.ws+"/go.mod", "module hello\n\ngo 1.22\n")
			writeFile(e.t, e.ws+"/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n")
			return "go build -o hello . && ./hello"
		},
		check: stdout("hello\n"),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			command := tc.setup(e) // may change e.policy
			r := e.run(e.policy, command)
			t.Log(r)
			if r.ExitCode != 0 {
				t.Errorf("exit %d", r.ExitCode)
			}
			if len(r.Blocked) > 0 || len(r.Killed) > 0 {
				t.Errorf("blocked %v, killed %v: want nothing", r.Blocked, r.Killed)
			}
			tc.check(t, e, r)
		})
	}
}

// TestNetworkGranted connects to the loopback server refused in
// TestNetworkRefused, with the network granted.
func TestNetworkGranted(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	p := e.policy
	p.Network = true
	r := e.run(p, "exec 3<>/dev/tcp/127.0.0.1/"+strconv.Itoa(l.Addr().(*net.TCPAddr).Port)+" && head -1 <&3")
	t.Log(r)
	if r.stdout != "hello\n" || len(r.Blocked) > 0 {
		t.Errorf("want hello and nothing blocked")
	}
}

// TestReadOnly writes nowhere, not even in the workspace; it still reads.
func TestReadOnly(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	p := e.policy
	p.Mode = sandbox.ReadOnly
	writeFile(t, e.ws+"/in.txt", "in")
	r := e.run(p, "cat in.txt; echo x > out.txt; echo y > $TMPDIR/t; echo s > /dev/shm/lathe-test; echo z > /dev/null && echo null-ok")
	t.Log(r)
	if r.stdout != "innull-ok\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	for _, f := range []string{e.ws + "/out.txt", e.tmp + "/t", "/dev/shm/lathe-test"} {
		if exists(f) {
			t.Errorf("%s written in read-only mode", f)
		}
	}
	if !r.blocked(sandbox.OpWrite, e.ws+"/out.txt") {
		t.Error("write in the workspace not reported")
	}
}

// TestLinkedWorktree commits from a linked worktree, whose git
// directories are outside it: DefaultPolicy makes them writable, and
// protects the main repository's hooks.
func TestLinkedWorktree(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	main := filepath.Join(e.base, "main")
	mkdir(t, main)
	gitInit(t, main)
	wt := filepath.Join(e.base, "wt")
	if out, err := exec.Command("git", "-C", main, "worktree", "add", "-q", "-b", "side", wt).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	p := sandbox.DefaultPolicy(wt, e.home, e.getenv)
	r := e.run(p, "cd "+wt+" && echo a > a && git add a && git commit -qm side && echo evil > "+main+"/.git/hooks/pre-commit; "+
		`printf '[core]\n\tfsmonitor = "touch pwned; false"\n' >> `+main+"/.git/config; echo '[core]' > "+main+"/.git/config.worktree")
	t.Log(r)
	out, _ := exec.Command("git", "-C", main, "log", "--format=%s", "side").Output()
	if !strings.HasPrefix(string(out), "side\n") {
		t.Errorf("commit from the worktree missing: %q", out)
	}
	if exists(main + "/.git/hooks/pre-commit") {
		t.Error("hook planted in the main repository")
	}
	if !r.blocked(sandbox.OpChange, main+"/.git/hooks") {
		t.Error("hook change not reported")
	}
	if out, _ := exec.Command("git", "-C", main, "config", "core.fsmonitor").Output(); len(out) > 0 || exists(main+"/.git/config.worktree") {
		t.Errorf("the main repository's config kept the command's change: fsmonitor %q", out)
	}
}

func stdout(want string) func(*testing.T, *env, result) {
	return func(t *testing.T, _ *env, r result) {
		t.Helper()
		if r.stdout != want {
			t.Errorf("stdout %q, want %q", r.stdout, want)
		}
	}
}

// TestCommandBytes sends a command that is not UTF-8, and a long one:
// both reach bash exactly.
func TestCommandBytes(t *testing.T) {
	e := newEnv(t)
	p := e.policy
	p.Mode = sandbox.Off
	r := e.run(p, "printf '%s' '\xff\xfe' | od -An -tx1")
	if strings.TrimSpace(r.stdout) != "ff fe" {
		t.Errorf("bytes: %q", r.stdout)
	}
	long := ": '" + strings.Repeat("x", 100<<10) + "'; echo done"
	if r := e.run(p, long); r.stdout != "done\n" {
		t.Errorf("long command: %q %q", r.stdout, r.stderr)
	}
}

// TestHomeUnderTemp: with the home directory beneath the temp directory
// (HOME=/tmp/home, as in many containers), the temp directory leads to
// the denied secrets and only its entries can be written; commands still
// build, in a temp directory of their own, and still cannot read the
// secrets. Nor does the temp directory make the home directory writable,
// but for the cache in it.
func TestHomeUnderTemp(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	home := filepath.Join(e.tmp, "home")
	writeFile(t, home+"/.ssh/id_ed25519", "SECRET key")
	writeFile(t, home+"/.bashrc", "# mine\n")
	vars := map[string]string{"TMPDIR": e.tmp, "GOTMPDIR": e.tmp, "XDG_CACHE_HOME": home + "/.cache"}
	p := sandbox.DefaultPolicy(e.ws, home, func(k string) string { return cmp.Or(vars[k], e.vars[k]) }, e.data)
	e.vars["HOME"], e.vars["TMPDIR"], e.vars["XDG_CACHE_HOME"] = home, e.tmp, home+"/.cache"
	writeFile(t, e.ws+"/go.mod", "module hello\n\ngo 1.22\n")
	writeFile(t, e.ws+"/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n")
	r := e.run(p, "go build -o hello . && ./hello && mktemp >/dev/null && echo t > $TMPDIR/t && cat $TMPDIR/t; "+
		"echo c > ~/.cache/c && cat ~/.cache/c; cat ~/.ssh/id_ed25519; echo 'touch pwned' >> ~/.bashrc")
	t.Log(r)
	if r.stdout != "hello\nt\nc\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	if b, _ := os.ReadFile(home + "/.bashrc"); string(b) != "# mine\n" {
		t.Errorf("~/.bashrc changed: %q", b)
	}
	if !r.blocked(sandbox.OpWrite, home+"/.bashrc") {
		t.Error("the write to ~/.bashrc not reported")
	}
	if !strings.Contains(strings.Join(sandbox.Probe(sandbox.ProbeOptions{}).Describe(p), "\n"), "nothing new can be made directly in "+e.tmp) {
		t.Errorf("the description does not say %s only lists", e.tmp)
	}
	if exists(p.TempDir) {
		t.Errorf("the command's own temp directory %s was left", p.TempDir)
	}
}
