//go:build linux

package sandbox_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"lathe/tools/sandbox"
)

// daemons starts, in the background, processes that escape a process
// group kill in every usual way, each a sleep with an argument starting
// with m; the command itself exits at once.
func daemons(m string) string {
	return strings.Join([]string{
		"setsid sleep " + m + "1 >/dev/null 2>&1 </dev/null &",
		"setsid -f sleep " + m + "2 >/dev/null 2>&1 </dev/null",
		"nohup sleep " + m + "3 >/dev/null 2>&1 &",
		"( (sleep " + m + "4 >/dev/null 2>&1 &) & )",
		"(setsid bash -c 'sleep " + m + "5 >/dev/null 2>&1 &' &)",
		"(trap '' HUP TERM INT; exec sleep " + m + "6) >/dev/null 2>&1 &",
		started(m, 6),
		"disown -a; exit 0",
	}, "\n")
}

// started is a command that waits until n sleeps with an argument
// starting with m run: then the test knows what there is to kill.
func started(m string, n int) string {
	return "until [ $(pgrep -c -f '^sleep " + m + "') -ge " + strconv.Itoa(n) + " ]; do sleep 0.01; done"
}

// TestLeftBehindKilled: what a command leaves running is killed when it
// ends, in every mode, and the report names exactly what was killed.
func TestLeftBehindKilled(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.Off} {
		t.Run(string(mode), func(t *testing.T) {
			if mode != sandbox.Off {
				requireSandbox(t)
			}
			e := newEnv(t)
			p := e.policy
			p.Mode = mode
			m := marker()
			r := e.run(p, daemons(m))
			t.Log(r)
			if pids := alive(m); len(pids) > 0 {
				t.Fatalf("left running: %v", pids)
			}
			if r.ExitCode != 0 || r.Stopped {
				t.Errorf("exit %d, stopped %v", r.ExitCode, r.Stopped)
			}
			if len(r.Killed) != 6 {
				t.Errorf("killed %v, want 6", r.Killed)
			}
			for _, k := range r.Killed {
				if k.Name != "sleep" {
					t.Errorf("killed %v, which was not left running", k)
				}
			}
			if got := r.KilledSummary(); !strings.HasPrefix(got, "killed 6 processes left running: sleep (pid ") {
				t.Errorf("summary %q", got)
			}
		})
	}
}

// TestNothingKilled: a command that leaves nothing behind reports no kill.
func TestNothingKilled(t *testing.T) {
	e := newEnv(t)
	p := e.policy
	p.Mode = sandbox.Off
	r := e.run(p, "sleep 0.01 & wait; (true &); true")
	if len(r.Killed)+len(r.Survivors) > 0 || r.KilledSummary() != "" {
		t.Errorf("killed %v %v, summary %q", r.Killed, r.Survivors, r.KilledSummary())
	}
}

// TestTimeout: when the context ends, the command and everything it
// started are killed, and the report says it was stopped.
func TestTimeout(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	m := marker()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := e.runCtx(ctx, e.policy, "setsid sleep "+m+" >/dev/null 2>&1 & sleep "+m+"; echo never")
	t.Log(r, time.Since(start))
	if pids := alive(m); len(pids) > 0 {
		t.Fatalf("left running: %v", pids)
	}
	if !r.Stopped || r.Signal != "SIGKILL" || strings.Contains(r.stdout, "never") {
		t.Errorf("stopped %v, signal %q: want the command killed", r.Stopped, r.Signal)
	}
	names := map[string]int{}
	for _, k := range r.Killed {
		names[k.Name]++
	}
	if names["bash"] != 1 || names["sleep"] != 2 {
		t.Errorf("killed %v, want bash and two sleeps", r.Killed)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
}

// TestCancel cancels the context once the command said it is running.
func TestCancel(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	m := marker()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cmd, err := sandbox.Command(ctx, exe(t), e.policy, "sleep "+m+" & "+started(m, 1)+"; echo ready; wait")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = e.environ()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("read %q", line)
	}
	cancel()
	r, err := cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if pids := alive(m); len(pids) > 0 || !r.Stopped || len(r.Killed) != 2 {
		t.Errorf("alive %v, stopped %v, killed %v", pids, r.Stopped, r.Killed)
	}
}

// TestLatheGone kills the process that started the command (lathe, here
// played by the test binary) with SIGKILL or SIGHUP: the helper sees its
// control pipe close and kills the command's processes before it exits.
func TestLatheGone(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			e := newEnv(t)
			m := marker()
			lathe := exec.Command(exe(t), "parent", e.ws, "setsid sleep "+m+"1 >/dev/null 2>&1 & sleep "+m+"2 & "+started(m, 2)+"; echo ready; wait")
			out, err := lathe.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := lathe.Start(); err != nil {
				t.Fatal(err)
			}
			// The parent's "helper PID" and the command's "ready" share
			// stdout, in either order.
			lines := bufio.NewReader(out)
			helper, ready := 0, false
			for range 2 {
				line, _ := lines.ReadString('\n')
				if line == "ready\n" {
					ready = true
					continue
				}
				if helper, err = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "helper "))); err != nil {
					t.Fatalf("read %q", line)
				}
			}
			if !ready || helper == 0 {
				t.Fatalf("ready %v, helper %d", ready, helper)
			}
			if len(alive(m)) != 2 {
				t.Fatalf("want 2 sleeps running, have %v", alive(m))
			}
			if err := lathe.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = lathe.Wait()
			if err := waitExit(helper, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			if pids := alive(m); len(pids) > 0 {
				t.Errorf("left running after lathe died: %v", pids)
			}
			_, _ = io.Copy(io.Discard, out)
		})
	}
}

// waitExit waits for a process that is not a child to exit.
func waitExit(pid int, limit time.Duration) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(limit.Milliseconds()))
	if err == nil && n == 0 {
		err = errors.New("helper still running")
	}
	return err
}
