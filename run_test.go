package main

import (
	"context"
	"errors"
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
	env := []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), "OLLAMA_HOST=" + srv.URL()}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		if srv.WaitHanging(ctx, 1) == nil {
			cancel()
		}
	}()
	var stdout, stderr strings.Builder
	code := run(ctx, []string{"-p", "hi", "-C", t.TempDir()}, strings.NewReader(""), &stdout, &stderr, env)
	if code != exitInterrupted || stderr.String() != "lathe: interrupted\n" || stdout.Len() != 0 {
		t.Errorf("code %d, stderr %q, stdout %q; want 130 and one line", code, stderr.String(), stdout.String())
	}
}

// TestExitCodes: one place maps how lathe ended to its exit code and its
// message on stderr.
func TestExitCodes(t *testing.T) {
	lim := config.Defaults().Limits
	stop := func(r agent.StopReason, turns int) error {
		res := agent.Result{StopReason: r, Turns: turns}
		return &stopped{reason: r, msg: res.Explain(lim)}
	}
	tests := []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"done", nil, exitOK, ""},
		{"turns", stop(agent.StopMaxTurns, 10), exitLimit, "lathe: stopped after 10 turns, the limit (limits.max_turns, or --max-turns)\n"},
		{"one turn", stop(agent.StopMaxTurns, 1), exitLimit, "lathe: stopped after 1 turn, the limit (limits.max_turns, or --max-turns)\n"},
		{"budget", stop(agent.StopToolBudget, 3), exitLimit, "lathe: stopped: the budget of 50 tool calls was used up (limits.tool_calls_per_prompt)\n"},
		{"timeout", stop(agent.StopTimeout, 3), exitLimit, "lathe: stopped: the time limit of 30m0s was reached (limits.timeout)\n"},
		{"interrupted", stop(agent.StopInterrupted, 1), exitInterrupted, "lathe: interrupted\n"},
		{"empty", stop(agent.StopEmpty, 2), exitFailure, "lathe: stopped: the model gave an empty reply twice; try again, or another model\n"},
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
