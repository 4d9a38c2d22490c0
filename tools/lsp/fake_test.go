package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"lathe/tools"
	"lathe/tools/lsp/lsptest"
	"lathe/tools/sandbox"
)

// The test binary is the fake server too, started again with LSPTEST=1,
// and the sandbox helper, as lathe's main runs it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	if os.Getenv("LSPTEST") == "1" {
		lsptest.Main()
	}
	os.Exit(m.Run())
}

// confined is the Starter that runs servers in the sandbox, as lathe
// does, for the workspace dir; the test is skipped where the system
// cannot confine.
func confined(t *testing.T, dir string) Starter {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := sandbox.DefaultPolicy(dir, os.Getenv("HOME"), os.Getenv)
	p, _, err = sandbox.Probe(sandbox.ProbeOptions{}).Resolve(p, sandbox.Refuse)
	if err != nil {
		t.Skip("the sandbox cannot confine here:", err)
	}
	return Confined(exe, ServerPolicy(p))
}

// fake is the fake server in mode, serving .fake files; started, when
// not "", is the file it notes its starts in.
func fake(t *testing.T, mode, started string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: "fake", Command: exe, Extensions: []string{".fake"},
		Env: map[string]string{"LSPTEST": "1", "LSPTEST_MODE": mode, lsptest.StartedEnv: started}}
}

// told records what a manager told.
type told struct {
	mu   sync.Mutex
	list []string
	ch   chan string
}

func newTold() *told { return &told{ch: make(chan string, 16)} }

func (n *told) add(s string) {
	n.mu.Lock()
	n.list = append(n.list, s)
	n.mu.Unlock()
	n.ch <- s
}

// fakeManager is a manager of the fake server in mode over files.
func fakeManager(t *testing.T, mode string, wait time.Duration, files map[string]string) (*Manager, string, *told, string) {
	t.Helper()
	dir, root := workspace(t, files)
	started := filepath.Join(t.TempDir(), "started")
	n := newTold()
	m := New(Options{Dir: dir, Root: root, Servers: []Server{fake(t, mode, started)}, Environ: os.Environ(), Wait: wait,
		InitTimeout: 2 * time.Second, Notify: n.add, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel)})
	t.Cleanup(m.Close)
	return m, dir, n, started
}

// starts is how many times the fake server started.
func starts(t *testing.T, started string) int {
	t.Helper()
	b, err := os.ReadFile(started)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(strings.Fields(string(b)))
}

// TestFakeReportsOnlyWhatTheChangeBrought: errors the file had before
// the change are not reported; those the change brought are; a change
// that fixes them reports none. A file of an unknown type starts no
// server and waits for nothing.
func TestFakeReportsOnlyWhatTheChangeBrought(t *testing.T) {
	m, dir, _, started := fakeManager(t, "", time.Minute, map[string]string{"a.fake": "ok\nERROR old\n", "notes.txt": "x"})
	ctx := t.Context()
	if d := m.Check(ctx, []tools.FileChange{change(t, dir, "notes.txt", "ERROR")}, nil); d.Total != 0 || starts(t, started) != 0 {
		t.Fatalf("a file no server serves got %+v, and started %d servers", d, starts(t, started))
	}
	d := m.Check(ctx, []tools.FileChange{change(t, dir, "a.fake", "ok\nERROR old\nfine ERROR new\n")}, nil)
	if want := []string{"a.fake:3:6: bad: fine ERROR new"}; !slices.Equal(d.Lines, want) || d.Total != 1 || !slices.Equal(d.Servers, []string{"fake"}) {
		t.Fatalf("got %+v, want %q", d, want)
	}
	if d := m.Check(ctx, []tools.FileChange{change(t, dir, "a.fake", "ok\nERROR old\n")}, nil); d.Total != 0 {
		t.Fatalf("the fix got %+v", d)
	}
	// A new file: all its errors are the change's.
	d = m.Check(ctx, []tools.FileChange{change(t, dir, "b.fake", "ERROR 1\nERROR 2\n")}, nil)
	if d.Total != 2 {
		t.Fatalf("a new file got %+v", d)
	}
	if n := starts(t, started); n != 1 {
		t.Errorf("the server started %d times, want once for the session", n)
	}
}

// TestLazyStart: nothing starts until a file of the server's language is
// read; a read starts it.
func TestLazyStart(t *testing.T) {
	m, _, _, started := fakeManager(t, "", time.Minute, map[string]string{"a.fake": "ERROR\n", "b.txt": ""})
	m.Read("b.txt")
	if n := starts(t, started); n != 0 {
		t.Fatalf("reading a file no server serves started %d servers", n)
	}
	m.Read("a.fake")
	for deadline := time.Now().Add(30 * time.Second); starts(t, started) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("reading a .fake file did not start its server")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFlood: a server that floods publications, for files outside the
// workspace and with twenty thousand diagnostics for the file, costs
// a bounded result and keeps only the documents lathe opened.
func TestFlood(t *testing.T) {
	m, dir, _, _ := fakeManager(t, lsptest.ModeFlood, time.Minute, map[string]string{"a.fake": "ok\n"})
	d := m.Check(t.Context(), []tools.FileChange{change(t, dir, "a.fake", "ERROR\n")}, nil)
	if len(d.Lines) > tools.MaxDiagnostics || d.Total > maxDiagnostics {
		t.Fatalf("%d lines, %d in all: not bounded", len(d.Lines), d.Total)
	}
	c := m.entries[0].c
	c.mu.Lock()
	open := len(c.docs)
	c.mu.Unlock()
	if open != 1 {
		t.Errorf("%d documents kept, want only the one opened", open)
	}
}

// TestOutside: diagnostics for files outside the workspace are dropped.
func TestOutside(t *testing.T) {
	m, dir, _, _ := fakeManager(t, lsptest.ModeOutside, time.Minute, map[string]string{"a.fake": "ok\n"})
	d := m.Check(t.Context(), []tools.FileChange{change(t, dir, "a.fake", "ERROR here\n")}, nil)
	if len(d.Lines) != 1 || !strings.HasPrefix(d.Lines[0], "a.fake:1:1: ") {
		t.Fatalf("got %+v", d)
	}
}

// TestSlowServers: a server that never answers initialize, one that stops
// reading, and one that never publishes cost a change at most the wait,
// and its result nothing.
func TestSlowServers(t *testing.T) {
	big := strings.Repeat("x", 200<<10) + "\nERROR\n" // more than a pipe holds
	for _, mode := range []string{lsptest.ModeNoInit, lsptest.ModeHang, lsptest.ModeSilent} {
		t.Run(mode, func(t *testing.T) {
			m, dir, _, _ := fakeManager(t, mode, 300*time.Millisecond, map[string]string{"a.fake": "ok\n"})
			for range 2 {
				if d := m.Check(t.Context(), []tools.FileChange{change(t, dir, "a.fake", big)}, nil); d.Total != 0 {
					t.Fatalf("got %+v", d)
				}
			}
		})
	}
}

// TestNoInitializeIsToldAndRetriedOnce: a server that never answers
// initialize is stopped, told once, started once more, and then left
// alone.
func TestNoInitializeIsToldAndRetriedOnce(t *testing.T) {
	m, dir, n, started := fakeManager(t, lsptest.ModeNoInit, 100*time.Millisecond, map[string]string{"a.fake": "ok\n"})
	ch := change(t, dir, "a.fake", "ERROR\n")
	m.Check(t.Context(), []tools.FileChange{ch}, nil)
	if s := <-n.ch; !strings.Contains(s, "did not answer initialize") || !strings.Contains(s, "starts again") {
		t.Fatalf("told %q", s)
	}
	m.Check(t.Context(), []tools.FileChange{ch}, nil)
	if s := <-n.ch; !strings.Contains(s, "goes on without it") {
		t.Fatalf("told %q", s)
	}
	m.Check(t.Context(), []tools.FileChange{ch}, nil)
	if got := starts(t, started); got != 2 {
		t.Errorf("started %d times, want 2", got)
	}
}

// TestCrash: a server that crashes mid-session is told once and started
// again when next needed; after a second crash lathe goes on without it.
func TestCrash(t *testing.T) {
	m, dir, n, started := fakeManager(t, lsptest.ModeCrash, time.Minute, map[string]string{"a.fake": "ok\n"})
	ctx := t.Context()
	check := func(content string) tools.Diagnostics {
		return m.Check(ctx, []tools.FileChange{change(t, dir, "a.fake", content)}, nil)
	}
	if d := check("ERROR 1\n"); d.Total != 1 {
		t.Fatalf("before the crash: %+v", d)
	}
	check("ERROR 2\n") // its second change: it crashes
	if s := <-n.ch; !strings.Contains(s, "stopped (") || !strings.Contains(s, "starts again") {
		t.Fatalf("told %q", s)
	}
	if d := check("ERROR 3\n"); d.Total != 1 {
		t.Fatalf("after the restart: %+v", d)
	}
	check("ERROR 4\n")
	if s := <-n.ch; !strings.Contains(s, "goes on without it") {
		t.Fatalf("told %q", s)
	}
	if d := check("ERROR 5\n"); d.Total != 0 {
		t.Fatalf("after the second crash: %+v", d)
	}
	if got := starts(t, started); got != 2 {
		t.Errorf("started %d times, want 2", got)
	}
}

// TestCloseEndsTheProcessTree: Close ends a server in the sandbox and
// every process it started.
func TestCloseEndsTheProcessTree(t *testing.T) {
	dir, root := workspace(t, map[string]string{"a.fake": "ok\n"})
	started := filepath.Join(t.TempDir(), "started")
	srv := fake(t, "", started)
	srv.Env[lsptest.ChildEnv] = "1"
	m := New(Options{Dir: dir, Root: root, Servers: []Server{srv}, Environ: os.Environ(), Wait: time.Minute,
		Start: confined(t, dir)})
	m.Check(t.Context(), []tools.FileChange{change(t, dir, "a.fake", "ERROR\n")}, nil)
	b, err := os.ReadFile(started)
	if err != nil {
		t.Fatal(err)
	}
	pids := strings.Fields(string(b))
	if len(pids) != 2 {
		t.Fatalf("the server noted %q, want itself and its child", pids)
	}
	m.Close()
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		if alive(pid) {
			t.Errorf("process %d lives on after Close", pid)
		}
	}
}

// alive reports whether pid is a process that has not ended (a zombie
// has) within a few seconds: a process killed may take a moment to die
// on a loaded machine. It waits on a pidfd, which becomes readable when
// the process ends.
func alive(pid int) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return false // no such process
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 5000)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n == 0
	}
}

// TestNoServerInstalled: a server whose program is nowhere is found
// missing, and checks wait for nothing.
func TestNoServerInstalled(t *testing.T) {
	dir, root := workspace(t, map[string]string{"main.go": "package main\n"})
	m := New(Options{Dir: dir, Root: root, Servers: Builtins(), Environ: []string{"PATH=" + t.TempDir()}})
	defer m.Close()
	for _, f := range m.Found() {
		if f.Path != "" || !strings.Contains(f.Why, "not found on PATH") {
			t.Errorf("%+v", f)
		}
	}
	var reported []string
	d := m.Check(t.Context(), []tools.FileChange{change(t, dir, "main.go", "package main\nfunc")},
		func(s string) { reported = append(reported, s) })
	if d.Total != 0 || reported != nil {
		t.Fatalf("got %+v, reported %q", d, reported)
	}
}
