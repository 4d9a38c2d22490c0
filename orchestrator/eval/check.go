package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"lathe/tools/sandbox"
)

// CheckResult is what a task's check said.
type CheckResult struct {
	Met bool
	// Exit is the check's exit code; -1 when it did not exit by itself
	// (killed at its timeout, or it could not start).
	Exit   int
	Output string // its last lines, stdout and stderr together
	// Reward is the reward it wrote, for a task whose verdict is one; nil
	// when it wrote none.
	Reward *float64
}

// checkOutput bounds the output a check's result keeps: its end.
const checkOutput = 4 << 10

// Checker runs a task's check command in dir (bash -c), with env, for
// timeout at most.
type Checker func(ctx context.Context, dir, command string, env []string, timeout time.Duration) CheckResult

// RunCheck is the Checker that runs the command in a process group of
// its own, killed whole when it ends or times out.
func RunCheck(ctx context.Context, dir, command string, env []string, timeout time.Duration) CheckResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &tail{max: checkOutput}
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left running
	}
	res := CheckResult{Exit: -1, Output: out.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.Output = strings.TrimSpace(res.Output + fmt.Sprintf("\n(the check was stopped after %s)", timeout))
	case err == nil:
		res.Met, res.Exit = true, 0
	case errors.As(err, &exit) && exit.Exited():
		res.Exit = exit.ExitCode()
	default:
		res.Output = strings.TrimSpace(res.Output + "\n" + err.Error())
	}
	return res
}

// checkEnv is the environment of a check: lathe's, with LATHE_TASK_DIR.
func checkEnv(environ []string, taskDir string) []string {
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "LATHE_TASK_DIR=") {
			env = append(env, kv)
		}
	}
	return append(env, "LATHE_TASK_DIR="+taskDir)
}

// workDir starts the name of an attempt's working directory; the
// runner's pid follows, then the task's name: a runner that was killed
// cannot remove its directories, and one that runs later can tell them.
const workDir = "lathe-eval-"

// prepare makes a fresh working directory under tmp holding a copy of
// the task's files.
func prepare(tmp string, t Task) (string, error) {
	dir, err := os.MkdirTemp(tmp, fmt.Sprintf("%s%d-%s-", workDir, os.Getpid(), t.Name))
	if err != nil {
		return "", err
	}
	files := t.Dir + string(os.PathSeparator) + "files"
	if _, err := os.Stat(files); err == nil {
		if err := os.CopyFS(dir, os.DirFS(files)); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("copy the files of task %s: %w", t.Name, err)
		}
	}
	return dir, nil
}

// sweep removes the working directories that runners which died left
// under tmp (the system's when ""): those whose runner's pid no longer
// runs. A directory of a live runner, or of a pid taken again since, is
// left alone.
func sweep(tmp string) {
	if tmp == "" {
		tmp = os.TempDir()
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), workDir)
		if !ok || !e.IsDir() {
			continue
		}
		digits, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(digits)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	max  int
	buf  []byte
	lost bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.lost = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "?"))
	if t.lost {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:] // from a whole line
		}
		return "…\n" + s
	}
	return s
}

// ConfinedCheck is the Checker that runs checks through lathe's sandbox
// helper (exe), as the model's commands ran: a check runs the code the
// model wrote. policyFor gives the policy for a working directory; where
// it gives none (the sandbox is off, or cannot confine here), the check
// runs as RunCheck runs it.
func ConfinedCheck(exe string, policyFor func(dir string) (sandbox.Policy, bool)) Checker {
	return func(ctx context.Context, dir, command string, env []string, timeout time.Duration) CheckResult {
		p, ok := policyFor(dir)
		if !ok {
			return RunCheck(ctx, dir, command, env, timeout)
		}
		runCtx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		out := &tail{max: checkOutput}
		cmd, err := sandbox.Command(runCtx, exe, p, command)
		if err != nil {
			return CheckResult{Exit: -1, Output: err.Error()}
		}
		cmd.Env, cmd.Stdout, cmd.Stderr = env, out, out
		rep, err := cmd.Run()
		res := CheckResult{Exit: rep.ExitCode, Output: out.String()}
		switch {
		case err != nil:
			res.Exit, res.Output = -1, strings.TrimSpace(res.Output+"\n"+err.Error())
		case rep.Stopped || runCtx.Err() != nil:
			res.Exit = -1
			res.Output = strings.TrimSpace(res.Output + fmt.Sprintf("\n(the check was stopped after %s)", timeout))
		default:
			res.Met = rep.ExitCode == 0
		}
		return res
	}
}
