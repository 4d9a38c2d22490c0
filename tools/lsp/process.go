package lsp

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"lathe/tools/sandbox"
)

// Process is a started server program: its stdin and stdout, and how it
// ends.
type Process struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	// Done is closed once the program ended.
	Done <-chan struct{}
	// Stop ends the program and every process it started, and waits
	// (boundedly) for them to be gone.
	Stop func()
}

// Starter starts a server's program (argv) in the workspace with the
// environment env (KEY=VALUE); what it writes on stderr goes to stderr.
type Starter func(argv, env []string, stderr io.Writer) (*Process, error)

// stopWait bounds how long Stop waits for a program to be gone.
const stopWait = 5 * time.Second

// Unconfined returns the Starter that runs programs in dir as they are,
// each in a process group of its own, which Stop kills.
func Unconfined(dir string) Starter {
	return func(argv, env []string, stderr io.Writer) (*Process, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env, cmd.Stderr = dir, env, stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return startPiped(cmd, func() error { return cmd.Start() }, cmd.Wait,
			func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	}
}

// Confined returns the Starter that runs programs under lathe's sandbox
// (exe is lathe, which runs the sandbox helper) with the policy p: Stop
// has the helper kill every process the program started, however they
// detached.
func Confined(exe string, p sandbox.Policy) Starter {
	return func(argv, env []string, stderr io.Writer) (*Process, error) {
		ctx, cancel := context.WithCancel(context.Background())
		cmd, err := sandbox.Command(ctx, exe, p, "exec "+shellJoin(argv))
		if err != nil {
			cancel()
			return nil, err
		}
		cmd.Env, cmd.Stderr = env, stderr
		cmd.WaitDelay = stopWait
		p, err := startPiped(cmd.Cmd, cmd.Start, func() error { _, err := cmd.Wait(); return err }, cancel)
		if err != nil {
			cancel()
		}
		return p, err
	}
}

// ServerPolicy is the policy language servers run under, from the one
// commands run under (p): the workspace read-only, the caches and a temp
// directory of their own writable, no network.
func ServerPolicy(p sandbox.Policy) sandbox.Policy {
	if p.Mode == sandbox.Off {
		return p
	}
	p.Mode, p.ReadOnlyWorkspace, p.Network = sandbox.WorkspaceWrite, true, false
	if p.TempDir != "" {
		p.TempDir = filepath.Join(filepath.Dir(p.TempDir), "lathe-lsp-"+rand.Text()[:12])
	}
	return p
}

// startPiped starts cmd through start with pipes to its stdin and from
// its stdout; wait waits for it, kill ends it.
func startPiped(cmd *exec.Cmd, start, wait func() error, kill func()) (*Process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		_ = wait()
		close(done)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			inW.Close()
			kill()
			t := time.NewTimer(stopWait)
			defer t.Stop()
			select {
			case <-done:
			case <-t.C:
			}
			outR.Close()
		})
	}
	return &Process{Stdin: inW, Stdout: outR, Done: done, Stop: stop}, nil
}

// shellJoin quotes argv for bash.
func shellJoin(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

// errStopped is what a call to a server that was stopped fails with.
var errStopped = errors.New("the language server stopped")
