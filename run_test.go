package main

import (
	"context"
	"strings"
	"testing"

	"lathe/agent"
	"lathe/config"
	"lathe/internal/ollamatest"
)

// TestRunInterruptedExitCode runs the command in-process and cancels it
// mid-stream, as SIGINT does: exit code 130.
func TestRunInterruptedExitCode(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Reply{Content: "a long answer", Hang: true, AfterChunks: 2})
	t.Setenv("OLLAMA_HOST", srv.URL())
	env := map[string]string{"HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		if srv.WaitHanging(ctx, 1) == nil {
			cancel()
		}
	}()
	var stdout, stderr strings.Builder
	code := run(ctx, []string{"-p", "hi", "-C", t.TempDir()}, strings.NewReader(""), &stdout, &stderr,
		func(k string) string { return env[k] })
	if code != exitInterrupted || stderr.String() != "lathe: interrupted\n" || stdout.Len() != 0 {
		t.Errorf("code %d, stderr %q, stdout %q; want 130 and one line", code, stderr.String(), stdout.String())
	}
}

func TestReportExitCodes(t *testing.T) {
	lim := config.Defaults().Limits
	tests := []struct {
		stop agent.StopReason
		code int
		msg  string
	}{
		{agent.StopDone, exitOK, ""},
		{agent.StopMaxTurns, exitLimit, "lathe: stopped after 10 turns, the limit (raise it with --max-turns)\n"},
		{agent.StopToolBudget, exitLimit, "lathe: stopped: the budget of 50 tool calls was used up (limits.tool_calls_per_prompt)\n"},
		{agent.StopTimeout, exitLimit, "lathe: stopped: the time limit of 30m0s was reached (limits.timeout)\n"},
		{agent.StopInterrupted, exitInterrupted, "lathe: interrupted\n"},
		{agent.StopError, exitFailure, "lathe: the run failed\n"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		code := report(&stderr, agent.Result{StopReason: tt.stop, Turns: 10}, nil, lim)
		if code != tt.code || stderr.String() != tt.msg {
			t.Errorf("%s: code %d, stderr %q; want %d, %q", tt.stop, code, stderr.String(), tt.code, tt.msg)
		}
	}
}
