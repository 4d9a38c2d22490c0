//go:build linux

package sandbox_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"lathe/tools/sandbox"
)

// The test binary plays three parts besides running the tests:
//
//	sandbox.test __sandbox-helper      the helper, as lathe would run it
//	sandbox.test attack WHAT ARGS...   a system call bash cannot make
//	sandbox.test parent WS COMMAND     a lathe running one sandboxed command
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case sandbox.HelperArg:
			os.Exit(sandbox.Main(os.Args[2:]))
		case "attack":
			os.Exit(attack(os.Args[2:]))
		case "parent":
			os.Exit(parent(os.Args[2], os.Args[3]))
		}
	}
	os.Exit(m.Run())
}

// attack makes one system call and says how it went: exit 0 and "ok"
// when it succeeded.
func attack(args []string) int {
	var err error
	switch args[0] {
	case "dial-unix":
		var c net.Conn
		if c, err = net.Dial("unix", args[1]); err == nil {
			c.Close()
		}
	case "ptrace":
		pid, _ := strconv.Atoi(args[1])
		if err = unix.PtraceAttach(pid); err == nil {
			_ = unix.PtraceDetach(pid)
		}
	case "mount":
		err = unix.Mount("tmpfs", args[1], "tmpfs", 0, "")
	case "create-setid":
		var fd int
		if fd, err = unix.Open(args[1], unix.O_CREAT|unix.O_WRONLY, 0o4755); err == nil {
			unix.Close(fd)
		}
	case "tgkill":
		pid, _ := strconv.Atoi(args[1])
		err = unix.Tgkill(pid, pid, 0)
	default:
		err = attackMore(args)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "attack:", args[0], err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

// parent runs command sandboxed in ws, its output on ours, after printing
// the helper's pid; the test kills it halfway.
func parent(ws, command string) int {
	exe, _ := os.Executable()
	cmd, err := sandbox.Command(context.Background(), exe, sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: ws}, command)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("helper", cmd.Process.Pid)
	if _, err := cmd.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// env is a fake home, workspace and the rest, all beneath one temporary
// directory, with a policy built by DefaultPolicy from them.
type env struct {
	t       testing.TB
	base    string
	ws      string // the workspace
	home    string // HOME, holding the secrets
	tmp     string // TMPDIR
	cache   string // XDG_CACHE_HOME
	outside string // neither writable nor denied
	data    string // lathe's data directory
	config  string // lathe's config directory, in the home
	vars    map[string]string
	policy  sandbox.Policy
	mark    string // a marker a test's processes carry (see marker)
}

// secrets are the files DefaultPolicy must keep unread, relative to home.
var secrets = []string{
	".ssh/id_ed25519", ".gnupg/private-keys-v1.d/key", ".aws/credentials",
	".config/gcloud/credentials.db", ".netrc", ".docker/config.json",
	".ollama/id_ed25519", ".bash_history", ".local/share/fish/fish_history",
}

func newEnv(t testing.TB) *env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{
		t: t, base: base,
		ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home"),
		tmp: filepath.Join(base, "tmp"), cache: filepath.Join(base, "cache"),
		outside: filepath.Join(base, "outside"),
	}
	e.data = filepath.Join(e.home, ".local", "share", "lathe")
	e.config = filepath.Join(e.home, ".config", "lathe")
	for _, d := range []string{e.ws, e.home, e.tmp, e.cache, e.outside, e.data, e.config} {
		mkdir(t, d)
	}
	for _, s := range append(secrets, ".config/lathe/config.toml") {
		writeFile(t, filepath.Join(e.home, s), "SECRET "+s)
	}
	writeFile(t, filepath.Join(e.data, "lathe.db"), "SECRET lathe.db")
	writeFile(t, filepath.Join(e.outside, "victim.txt"), "victim")
	e.vars = map[string]string{
		"HOME": e.home, "TMPDIR": e.tmp, "XDG_CACHE_HOME": e.cache,
		"GOCACHE": goCache(), "GOMODCACHE": filepath.Join(e.cache, "mod"),
		"GOPATH": filepath.Join(e.cache, "gopath"), "GOTOOLCHAIN": "local", "GOPROXY": "off",
		"GOFLAGS": "", "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
	}
	e.policy = sandbox.DefaultPolicy(e.ws, e.home, e.getenv, e.data, e.config)
	return e
}

func (e *env) getenv(k string) string { return e.vars[k] }

func (e *env) environ() []string {
	out := []string{"PATH=" + os.Getenv("PATH"), "LANG=C"}
	for k, v := range e.vars {
		out = append(out, k+"="+v)
	}
	return out
}

// result is what one sandboxed command did.
type result struct {
	sandbox.Report
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d %s\nkilled %v\nblocked %v\n[stdout]\n%s[stderr]\n%s", r.ExitCode, r.Signal, r.Killed, r.Blocked, r.stdout, r.stderr)
}

// blocked reports whether the report holds a blocked op on a target
// containing target.
func (r result) blocked(op sandbox.Op, target string) bool {
	for _, b := range r.Blocked {
		if b.Op == op && strings.Contains(b.Target, target) {
			return true
		}
	}
	return false
}

func (e *env) run(p sandbox.Policy, command string) result {
	e.t.Helper()
	return e.runCtx(e.t.Context(), p, command)
}

func (e *env) runCtx(ctx context.Context, p sandbox.Policy, command string) result {
	e.t.Helper()
	cmd, err := sandbox.Command(ctx, exe(e.t), p, command)
	if err != nil {
		e.t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Env = e.environ()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	rep, err := cmd.Run()
	if err != nil {
		e.t.Fatalf("run %q: %v\n%s", command, err, stderr.String())
	}
	if strings.Contains(stderr.String(), "syntax error") {
		e.t.Fatalf("the test's command is wrong: %s", stderr.String())
	}
	return result{Report: rep, stdout: stdout.String(), stderr: stderr.String()}
}

func exe(t testing.TB) string {
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// requireSandbox skips a test that needs the kernel to confine commands.
func requireSandbox(t testing.TB) {
	if s := sandbox.Probe(sandbox.ProbeOptions{}); !s.Confines() {
		t.Skip("sandbox not supported here:", s.Reason)
	}
}

var goCache = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// marker returns an argument for sleep that no other process has, to find
// the processes of one test in /proc.
func marker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	var s strings.Builder
	s.WriteString("3600.")
	for _, c := range b {
		s.WriteByte('0' + c%10)
	}
	return s.String()
}

// alive returns the pids of live sleep processes whose argument starts
// with m.
func alive(m string) []int {
	var pids []int
	names, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil || !bytes.HasPrefix(b, []byte("sleep\x00"+m)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(n)))
		if st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); err == nil && !bytes.Contains(st, []byte(") Z ")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// attackMore are the red team's system calls: each must fail.
func attackMore(args []string) error {
	pid := func() int { p, _ := strconv.Atoi(args[1]); return p }
	switch args[0] {
	case "pidfd-signal": // a pidfd from open("/proc/PID"), then a signal through it
		fd, err := unix.Open("/proc/"+args[1], unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.PidfdSendSignal(fd, 0, nil, 0)
	case "vm-read":
		buf := make([]byte, 8)
		_, err := unix.ProcessVMReadv(pid(), []unix.Iovec{{Base: &buf[0], Len: 8}}, []unix.RemoteIovec{{Base: 0x400000, Len: 8}}, 0)
		return err
	case "sigio": // a pipe's SIGIO aimed at PID (its default action ends it)
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		if _, err := unix.FcntlInt(r.Fd(), unix.F_SETOWN, pid()); err != nil {
			return err
		}
		fl, _ := unix.FcntlInt(r.Fd(), unix.F_GETFL, 0)
		if _, err := unix.FcntlInt(r.Fd(), unix.F_SETFL, fl|unix.O_ASYNC); err != nil {
			return err
		}
		_, err = w.Write([]byte("x"))
		return fmt.Errorf("sent (%v): the target must still live", err)
	case "io-uring":
		var params [120]byte
		_, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			return errno
		}
		return nil
	case "abstract-send": // a datagram to an abstract socket outside
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Sendto(fd, []byte("x"), 0, &unix.SockaddrUnix{Name: "@" + args[1]})
	case "subreaper": // become a subreaper, leave a setsid grandchild, exit
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return err
		}
		cmd := exec.Command("setsid", "sleep", args[1])
		if err := cmd.Start(); err != nil {
			return err
		}
		return errors.New("left " + args[1])
	}
	return fmt.Errorf("unknown attack %q", args[0])
}
