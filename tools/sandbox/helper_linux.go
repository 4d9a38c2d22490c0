//go:build linux

package sandbox

import (
	"bufio"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"lathe/tools/sandbox/internal/guard"
	"lathe/tools/sandbox/internal/reaper"
	"lathe/tools/sandbox/internal/seccomp"
)

const (
	exitSetup = 125 // the command could not be run
	// killDeadline bounds how long the helper tries to kill a command's
	// processes before it reports those left as survivors.
	killDeadline = 3 * time.Second
	maxBlocked   = 50
)

// Main runs the helper: it reads the request lathe sends on fd 3, runs
// the command confined, kills whatever the command leaves running, puts
// back protected paths, and writes its Report to fd 4. It returns the exit
// code: bash's (128+n for signal n), or 125 when the command could not be
// run as asked.
func Main(args []string) int {
	// The kernel checks signals and ptrace against a process's main
	// thread. It must stay unconfined, so this goroutine keeps it, and the
	// command starts from another thread (see onSideThread).
	runtime.LockOSThread()
	closeInherited()
	out := os.NewFile(fdReport, "report")
	defer out.Close()
	rep, err := serve(bufio.NewReader(os.NewFile(fdControl, "control")), args)
	w := wireReport{Report: rep}
	if err != nil {
		w.Error, w.Unsupported = err.Error(), errors.Is(err, ErrUnsupported)
	}
	_ = json.NewEncoder(out).Encode(w)
	if err != nil {
		return exitSetup
	}
	if sig := unix.SignalNum(rep.Signal); sig != 0 {
		return 128 + int(sig)
	}
	return rep.ExitCode
}

func serve(ctl *bufio.Reader, args []string) (Report, error) {
	if len(args) != 0 {
		return Report{}, fmt.Errorf("unexpected arguments %q", args)
	}
	var req request
	// The decoder reads exactly one message from a ByteReader: what
	// follows on ctl is lathe closing it.
	if err := gob.NewDecoder(ctl).Decode(&req); err != nil {
		return Report{}, fmt.Errorf("read request: %w", err)
	}
	if err := req.Policy.validate(); err != nil {
		return Report{}, err
	}
	h := &helper{req: req}
	return h.run(ctl)
}

type helper struct {
	req request

	mu      sync.Mutex
	blocked []Blocked
}

func (h *helper) run(ctl io.Reader) (Report, error) {
	p := h.req.Policy
	if err := reaper.Become(); err != nil {
		return Report{}, err
	}
	// Not dumpable: processes without CAP_SYS_PTRACE cannot trace the
	// helper or read its memory, whatever their domain.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	bash, err := exec.LookPath("bash")
	if err != nil {
		if bash, err = exec.LookPath("/bin/bash"); err != nil {
			return Report{}, err
		}
	}
	var snap *guard.Snapshot
	if p.Mode == WorkspaceWrite {
		for _, w := range p.Writable {
			_ = os.MkdirAll(w, 0o700)
		}
		if p.TempDir != "" && os.Mkdir(p.TempDir, 0o700) == nil {
			defer os.RemoveAll(p.TempDir) // made for this command alone
		}
		snap = guard.Take(protectedPaths(p))
	}
	conf, err := prepare(p)
	if err != nil {
		return Report{}, err
	}
	pid, listener, err := h.start(bash, conf)
	if conf != nil {
		unix.Close(conf.ruleset)
	}
	if err != nil {
		return Report{}, err
	}
	r := reaper.Start(pid)
	supervised := make(chan struct{})
	if listener >= 0 {
		go func() {
			seccomp.Supervise(listener, h.sawCall)
			close(supervised)
		}()
	} else {
		close(supervised)
	}
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, ctl) // until lathe closes its end, or dies
		close(stop)
	}()
	return h.finish(r, stop, supervised, snap), nil
}

// finish waits for bash or for lathe to stop the command, kills every
// process left, and makes the report.
func (h *helper) finish(r *reaper.Reaper, stop, supervised <-chan struct{}, snap *guard.Snapshot) Report {
	var rep Report
	select {
	case <-r.MainDone():
	case <-stop:
		rep.Stopped = true
	}
	rep.Killed, rep.Survivors = convert(r.KillAll(time.Now().Add(killDeadline)))
	select {
	case <-r.MainDone():
		if ws := r.Status(); ws.Signaled() {
			rep.ExitCode, rep.Signal = -1, unix.SignalName(ws.Signal())
		} else {
			rep.ExitCode = ws.ExitStatus()
		}
	case <-time.After(time.Second):
		rep.ExitCode = -1 // bash itself is among the survivors
	}
	select {
	case <-supervised:
	case <-time.After(time.Second):
	}
	if snap != nil {
		for _, c := range snap.Restore(h.keepNew) {
			h.add(changeBlocked(c))
		}
	}
	h.mu.Lock()
	rep.Blocked = h.blocked
	h.mu.Unlock()
	return rep
}

// start starts bash from a side thread, confined first unless conf is
// nil. listener is where refused sockets are referred, -1 if nowhere.
func (h *helper) start(bash string, conf *confinement) (pid, listener int, err error) {
	listener = -1
	env := h.req.Policy.commandEnv(os.Environ())
	onSideThread(func() {
		if conf != nil {
			if listener, err = conf.apply(); err != nil {
				return
			}
		}
		pid, err = syscall.ForkExec(bash, []string{"bash", "-c", h.req.Command}, &syscall.ProcAttr{
			Dir:   h.req.Policy.Workspace,
			Env:   env,
			Files: []uintptr{0, 1, 2},
			// Its own group, so that "kill 0" in the command stays in it.
			Sys: &syscall.SysProcAttr{Setpgid: true},
		})
	})
	if err != nil && listener >= 0 {
		unix.Close(listener)
		listener = -1
	}
	if err != nil {
		return 0, -1, fmt.Errorf("start bash: %w", err)
	}
	return pid, listener, nil
}

// closeInherited marks every descriptor above stderr close-on-exec: the
// control and report pipes, and whatever lathe inherited without the flag
// and passed on (a CI runner's socket, a make jobserver's pipe), which
// would otherwise reach the command and let it talk to the world.
func closeInherited() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: one by one.
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// onSideThread runs f on a locked thread that is not the main thread, and
// lets that thread end with f, taking whatever f did to its credentials
// (Landlock domain, seccomp filter, no_new_privs) with it. Threads the Go
// runtime starts later come from its template thread, never from a locked
// one, so no other thread inherits them.
func onSideThread(f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		if unix.Gettid() == unix.Getpid() {
			// The main thread (Main holds it, but this must not rely on
			// that): keep it busy so that the retry lands elsewhere.
			onSideThread(f)
			runtime.UnlockOSThread()
			close(done)
			return
		}
		defer close(done)
		f()
	}()
	<-done
}

// keepNew says whether a protected path the command made may stay: in
// the workspace, what git itself makes and never runs ("git init");
// elsewhere, nothing (a .git made in the temp directory, or above the
// workspace, would make a repository of what is beneath).
func (h *helper) keepNew(root *os.Root, rel string) bool {
	return within(filepath.Join(root.Name(), rel), h.req.Policy.Workspace) && inertGitPath(root, rel)
}

func (h *helper) sawCall(c seccomp.Call) {
	var target string
	switch c.Nr {
	case unix.SYS_SOCKET:
		target = socketTarget(c.Args[0], c.Args[1])
	case unix.SYS_CONNECT:
		addr := peerAddress(c.PID, c.Args[1], c.Args[2])
		if quietAddress(addr) {
			return
		}
		target = "connect to " + addr
	default:
		target = fmt.Sprintf("system call %d", c.Nr)
	}
	h.add(Blocked{Op: OpNetwork, Target: target, By: reaper.Name(c.PID)})
}

func (h *helper) add(b Blocked) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, o := range h.blocked {
		if o == b {
			return
		}
	}
	if len(h.blocked) < maxBlocked {
		h.blocked = append(h.blocked, b)
	}
}

func changeBlocked(c guard.Change) Blocked {
	b := Blocked{Op: OpChange, Target: c.Path.String()}
	switch {
	case c.Restored:
		b.Note = "put back as it was"
	case c.Removed:
		b.Note = "removed: it did not exist before"
	case c.Replaced:
		b.Note = "it had been replaced; the replacement was removed"
	default:
		b.Note = fmt.Sprintf("could not put it back: %v", c.Err)
	}
	return b
}

func convert(killed, survivors []reaper.Process) ([]Process, []Process) {
	conv := func(ps []reaper.Process) []Process {
		var out []Process
		for _, p := range ps {
			out = append(out, Process{PID: p.PID, Name: p.Name})
		}
		return out
	}
	return conv(killed), conv(survivors)
}
