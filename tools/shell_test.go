package tools

import (
	"context"
	"encoding/json"
	"errors"
	"lathe/tools/sandbox"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestShell(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"here.txt": "x"})
	opts := Options{Env: []string{"PATH=" + os.Getenv("PATH"), "LATHE_TEST=1"}}
	tests := []struct {
		name, args, want, summary string
		isErr                     bool
	}{
		{name: "ok", args: `{"command":"echo hi"}`, want: "exit 0\n[stdout]\nhi\n", summary: "exit 0"},
		{name: "exit code and stderr", args: `{"command":"echo out; echo err >&2; exit 3"}`, want: "exit 3\n[stdout]\nout\n[stderr]\nerr\n", summary: "exit 3", isErr: true},
		{name: "no output", args: `{"command":"true"}`, want: "exit 0\n(no output)\n"},
		{name: "no final newline", args: `{"command":"printf abc"}`, want: "exit 0\n[stdout]\nabc\n[no newline at end]\n"},
		{name: "working dir", args: `{"command":"cat here.txt; pwd"}`, want: "exit 0\n[stdout]\nx" + ws.Dir() + "\n"},
		{name: "env", args: `{"command":"echo $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $LATHE_TEST"}`, want: "exit 0\n[stdout]\ncat cat 0 1\n"},
		{name: "stdin is empty", args: `{"command":"cat; echo done"}`, want: "exit 0\n[stdout]\ndone\n"},
		{name: "signal", args: `{"command":"kill -TERM $$"}`, want: "killed by signal SIGTERM\n", isErr: true},
		{name: "timeout too big", args: `{"command":"true","timeout_seconds":601}`, want: "timeout_seconds must be between 1 and 600, got 601", isErr: true},
		{name: "timeout negative", args: `{"command":"true","timeout_seconds":-1}`, want: "timeout_seconds must be between 1 and 600", isErr: true},
		{name: "empty", args: `{"command":"  "}`, want: "command is empty", isErr: true},
	}
	shellWays(t, ws, opts, func(t *testing.T, opts Options) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := run(t, ws, opts, "shell", tt.args)
				if res.IsError != tt.isErr || res.Content != tt.want && !(tt.isErr && strings.Contains(res.Content, tt.want)) {
					t.Fatalf("got %+v\nwant IsError=%v, content %q", res, tt.isErr, tt.want)
				}
				if tt.summary != "" && res.Summary != tt.summary {
					t.Fatalf("summary %q, want %q", res.Summary, tt.summary)
				}
			})
		}
	})
}

func TestShellOutputCapped(t *testing.T) {
	ws := newWorkspace(t, nil)
	res := run(t, ws, Options{MaxOutputBytes: 1024}, "shell", `{"command":"seq 1 100000; seq 1 5000 >&2"}`)
	if len(res.Content) > 1200 {
		t.Fatalf("content is %d bytes", len(res.Content))
	}
	for _, want := range []string{"[stdout]\n1\n2\n", "\n100000\n[stderr]\n1\n", "\n5000\n", "lines (", "bytes) cut ...]"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("missing %q in\n%s", want, res.Content)
		}
	}
}

// TestShellTimeoutKillsGroup checks that a timeout kills a grandchild that
// would otherwise keep running (and keep the output pipe open).
func TestShellTimeoutKillsGroup(t *testing.T) {
	ws := newWorkspace(t, nil)
	shellWays(t, ws, Options{}, func(t *testing.T, opts Options) {
		res := run(t, ws, opts, "shell", `{"command":"sleep 100 & echo $! > pid; echo started; sleep 100","timeout_seconds":1}`)
		if !res.IsError || res.Summary != "timed out" || !strings.HasPrefix(res.Content, "timed out after 1s; the ") || !strings.Contains(res.Content, "started") {
			t.Fatalf("%+v", res)
		}
		if opts.Confinement != nil && !strings.Contains(res.Content, "(killed 2 processes of the command: sleep (pid ") {
			t.Errorf("the result does not say what was killed: %q", res.Content)
		}
		assertDead(t, readPid(t, filepath.Join(ws.Dir(), "pid")))
	})
}

// TestShellKillsWhatDetached: processes that leave the command's session
// or process group (setsid, a double fork) are still killed when it ends,
// and the result names them; nothing is said killed that was not.
func TestShellKillsWhatDetached(t *testing.T) {
	ws := newWorkspace(t, nil)
	opts := Options{Confinement: confined(t, ws, sandbox.Off)}
	res := run(t, ws, opts, "shell", `{"command":"setsid sleep 101 >/dev/null 2>&1 < /dev/null & echo $! > a; (setsid sh -c 'sleep 102 & echo $! > b' &); sleep 0.2; echo started"}`)
	if res.IsError || !strings.Contains(res.Content, "started") {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(res.Content, "(killed 2 processes left running: sleep (pid ") {
		t.Errorf("the result does not name the two sleeps killed: %q", res.Content)
	}
	assertDead(t, readPid(t, filepath.Join(ws.Dir(), "a")))
	assertDead(t, readPid(t, filepath.Join(ws.Dir(), "b")))
	res = run(t, ws, opts, "shell", `{"command":"echo quiet"}`)
	if strings.Contains(res.Content, "killed") {
		t.Errorf("a command that left nothing says something was killed: %q", res.Content)
	}
}

// TestShellCancelKillsGroup cancels the context once the command has
// started a grandchild, signalled through a FIFO, and checks that Run
// returns ctx's error with the output so far and that the grandchild is gone.
func TestShellCancelKillsGroup(t *testing.T) {
	ws := newWorkspace(t, nil)
	shellWays(t, ws, Options{}, func(t *testing.T, opts Options) { shellCancel(t, ws, opts) })
}

func shellCancel(t *testing.T, ws *Workspace, opts Options) {
	fifo := filepath.Join(ws.Dir(), "fifo")
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tool, _ := Default(ws, opts).Lookup("shell")
	call, err := tool.Prepare(json.RawMessage(`{"command":"echo before; sleep 100 & echo $! > fifo; wait"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := call.Run(ctx, Caller{})
		done <- outcome{res, err}
	}()
	pidText, err := os.ReadFile(fifo) // blocks until the command writes
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	got := <-done
	if !errors.Is(got.err, context.Canceled) || !got.res.IsError || !strings.Contains(got.res.Content, "before") {
		t.Fatalf("Run = %+v, %v", got.res, got.err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if err != nil {
		t.Fatal(err)
	}
	assertDead(t, pid)
}

// TestShellKillsLeftovers checks that a background process left by a
// command that exits is killed, and does not hold the call up for long.
func TestShellKillsLeftovers(t *testing.T) {
	ws := newWorkspace(t, nil)
	shellWays(t, ws, Options{}, func(t *testing.T, opts Options) {
		res := run(t, ws, opts, "shell", `{"command":"sleep 100 >/dev/null 2>&1 & echo $! > pid"}`)
		if res.IsError || res.Summary != "exit 0" {
			t.Fatalf("%+v", res)
		}
		assertDead(t, readPid(t, filepath.Join(ws.Dir(), "pid")))
	})
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(readString(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// sysPidfdOpen is pidfd_open(2)'s number, the same on every Linux
// architecture Go supports.
const sysPidfdOpen = 434

// assertDead waits, up to 5 s, for pid to exit, by polling a pidfd: it
// becomes readable when the process exits. That the process goes is the
// point; how long it takes after SIGKILL is up to the scheduler.
func assertDead(t *testing.T, pid int) {
	t.Helper()
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	switch errno {
	case 0:
	case syscall.ESRCH:
		return // gone already
	default:
		t.Fatalf("pidfd_open(%d): %v", pid, errno)
	}
	defer syscall.Close(int(fd))
	var set syscall.FdSet
	set.Bits[fd/64] |= int64(1) << (fd % 64)
	tv := syscall.Timeval{Sec: 5}
	n, err := syscall.Select(int(fd)+1, &set, nil, nil, &tv)
	if err != nil {
		t.Fatalf("select: %v", err)
	}
	if n == 0 {
		t.Fatalf("process %d is still running 5 s after its group was killed", pid)
	}
}
