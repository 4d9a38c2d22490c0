package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider/ollama/ollamatest"

	"github.com/ollama/ollama/api"
)

// TestRunInterruptedExitCode runs the command in-process and cancels it
// mid-stream, as SIGINT does: exit code 130.
func TestRunInterruptedExitCode(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Reply{Content: "a long answer", Hang: true, AfterChunks: 2})
	env := []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), "OLLAMA_HOST=" + srv.URL()}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		if srv.WaitHanging(ctx, 1) == nil {
			cancel()
		}
	}()
	var stdout, stderr strings.Builder
	code := Run(ctx, []string{"-p", "hi", "-C", t.TempDir()}, strings.NewReader(""), &stdout, &stderr, env)
	if code != exitInterrupted || stderr.String() != "lathe: interrupted\n" || stdout.Len() != 0 {
		t.Errorf("code %d, stderr %q, stdout %q; want 130 and one line", code, stderr.String(), stdout.String())
	}
}

// TestExitCodes: one place maps how lathe ended to its exit code and its
// message on stderr.
func TestExitCodes(t *testing.T) {
	lim := config.Defaults().Limits
	stop := func(r orchestrator.StopReason, turns int) error {
		res := orchestrator.Result{StopReason: r, Turns: turns}
		return &stopped{reason: r, msg: res.Explain(lim)}
	}
	tests := []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"done", nil, exitOK, ""},
		{"turns", stop(orchestrator.StopMaxTurns, 10), exitLimit, "lathe: stopped after 10 turns, the limit (limits.max_turns, or --max-turns)\n"},
		{"one turn", stop(orchestrator.StopMaxTurns, 1), exitLimit, "lathe: stopped after 1 turn, the limit (limits.max_turns, or --max-turns)\n"},
		{"budget", stop(orchestrator.StopToolBudget, 3), exitLimit, "lathe: stopped: the budget of 50 tool calls was used up (limits.tool_calls_per_prompt)\n"},
		{"timeout", stop(orchestrator.StopTimeout, 3), exitLimit, "lathe: stopped: the time limit of 30m0s was reached (limits.timeout)\n"},
		{"interrupted", stop(orchestrator.StopInterrupted, 1), exitInterrupted, "lathe: interrupted\n"},
		{"empty", stop(orchestrator.StopEmpty, 2), exitFailure, "lathe: stopped: the model gave an empty reply twice; try again, or another model\n"},
		{"cancelled", context.Canceled, exitInterrupted, "lathe: interrupted\n"},
		{"usage", usagef("--max-turns must be at least 1"), exitUsage, "lathe: --max-turns must be at least 1\nRun \"lathe --help\" for usage.\n"},
		{"config", &config.Error{Key: "LOG_LEVEL", Msg: "bad"}, exitUsage, "lathe: config: LOG_LEVEL: bad\n"},
		{"failure", errors.New("cannot reach Ollama"), exitFailure, "lathe: cannot reach Ollama\n"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		code := exit(&stderr, tt.err)
		if code != tt.code || stderr.String() != tt.msg {
			t.Errorf("%s: code %d, stderr %q; want %d, %q", tt.name, code, stderr.String(), tt.code, tt.msg)
		}
	}
}

// TestHangupStopsTheCommand: a closed terminal (SIGHUP) ends lathe as
// Ctrl+C does, and the command it was running goes with it, daemons it
// started included.
func TestHangupStopsTheCommand(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "shell", Arguments: json.RawMessage(
		`{"command":"setsid sleep 1051 >/dev/null 2>&1 < /dev/null & echo $! > pids; sleep 1052 & echo $! >> pids; touch started; wait"}`)}}})
	srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "done"} })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "lathe")); err != nil { // testscript.Main runs main under this name
		t.Fatal(err)
	}
	dir, home := t.TempDir(), t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "lathe"), "-p", "run it", "--yes", "-C", dir)
	cmd.Env = []string{"HOME=" + home, "OLLAMA_HOST=" + srv.URL(), "PATH=" + os.Getenv("PATH")}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(dir, "started")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the command never started; stderr:\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "lathe: interrupted") {
		t.Fatalf("lathe ended with %v; stderr:\n%s", err, stderr.String())
	}
	pids, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(pids)) {
		pid, _ := strconv.Atoi(f)
		waitGone(t, pid)
	}
}

// waitGone waits, 5 s at most, for process pid to be gone.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
	}
	t.Errorf("process %d outlived lathe", pid)
}
