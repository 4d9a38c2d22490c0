package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"

	"lathe/tools/sandbox"
)

// ended is how a hook's process ended.
type ended struct {
	code     int // the exit code; -1 when killed or not started
	stdout   *capBuffer
	stderr   *capBuffer
	timedOut bool
	err      error // it could not be run
	duration time.Duration
}

var errTimedOut = errors.New("the hook's time limit was reached")

// waitDelay is how long a hook's output may stay open once its process
// exited, or was killed, before what holds it is killed too.
const waitDelay = 2 * time.Second

// exec runs h's command with stdin, in dir, and waits for it or its time
// limit: then, or when ctx ends, its whole process tree is killed.
func (r *Runner) exec(ctx context.Context, h Hook, stdin []byte) ended {
	ctx, cancel := context.WithTimeoutCause(ctx, h.timeout(), errTimedOut)
	defer cancel()
	res := ended{code: -1, stdout: newCapBuffer(r.opts.OutputBytes), stderr: newCapBuffer(r.opts.OutputBytes)}
	start := r.opts.Now()
	if r.opts.Helper != "" {
		res = r.execHelper(ctx, h, stdin, res)
	}
	if r.opts.Helper == "" || errors.Is(res.err, sandbox.ErrUnsupported) {
		res.err = nil
		res = r.execGroup(ctx, h, stdin, res)
	}
	res.duration = r.opts.Now().Sub(start)
	if errors.Is(context.Cause(ctx), errTimedOut) {
		res.timedOut = true
	}
	return res
}

// execHelper runs the command through lathe's sandbox helper, unconfined:
// the helper is a subreaper, so that every process the hook leaves,
// however it detached, is killed at its end, timeout or cancel, and when
// lathe itself dies.
func (r *Runner) execHelper(ctx context.Context, h Hook, stdin []byte, res ended) ended {
	cmd, err := sandbox.Command(ctx, r.opts.Helper, sandbox.Policy{Mode: sandbox.Off, Workspace: r.opts.Dir}, h.Command)
	if err != nil {
		res.err = err
		return res
	}
	cmd.Env = r.env()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), res.stdout, res.stderr
	cmd.WaitDelay = waitDelay
	rep, err := cmd.Run()
	if err != nil {
		res.err = err
		return res
	}
	res.code = rep.ExitCode
	if rep.Signal != "" {
		res.code = -1
	}
	return res
}

// execGroup runs the command in its own process group, killed whole at
// its end, timeout or cancel (a process that left the group with setsid
// is out of its reach: the helper has no such gap).
func (r *Runner) execGroup(ctx context.Context, h Hook, stdin []byte, res ended) ended {
	cmd := exec.CommandContext(ctx, "bash", "-c", h.Command)
	cmd.Dir = r.opts.Dir
	cmd.Env = r.env()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), res.stdout, res.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		res.err = fmt.Errorf("start bash: %w", err)
		return res
	}
	_ = cmd.Wait()
	_ = killGroup(cmd) // what it left running in the background
	if st := cmd.ProcessState; st != nil {
		res.code = st.ExitCode()
	}
	return res
}

// killGroup kills the command's process group.
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// env is the hooks' environment: lathe's, with the project's directory
// under the names Claude Code's hooks and lathe's read it by.
func (r *Runner) env() []string {
	return append(r.opts.Environ[:len(r.opts.Environ):len(r.opts.Environ)],
		"CLAUDE_PROJECT_DIR="+r.opts.Dir, "LATHE_PROJECT_DIR="+r.opts.Dir)
}

// capBuffer keeps the first limit bytes written to it and counts the
// rest, so that a hook printing megabytes costs only limit bytes.
type capBuffer struct {
	limit int
	buf   []byte
	total int
}

func newCapBuffer(limit int) *capBuffer { return &capBuffer{limit: limit} }

// Write never fails.
func (b *capBuffer) Write(p []byte) (int, error) {
	b.total += len(p)
	if room := b.limit - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// cut is how many bytes were not kept.
func (b *capBuffer) cut() int { return b.total - len(b.buf) }

// text is what was kept, with a note of what was cut.
func (b *capBuffer) text() string {
	if n := b.cut(); n > 0 {
		return string(bytes.ToValidUTF8(b.buf, nil)) + fmt.Sprintf("\n[… %d bytes cut]", n)
	}
	return string(b.buf)
}
