package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// script writes an executable script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func newRunner(t *testing.T, dir string, hooks ...Hook) *Runner {
	t.Helper()
	return New(Options{Hooks: hooks, Dir: dir, Environ: os.Environ(), Trusted: true, OutputBytes: 4096})
}

func preToolUse(name string, aliases ...string) Input {
	return Input{Event: PreToolUse, SessionID: "s1", Cwd: "/w", PermissionMode: "default", ToolName: name,
		ToolInput: json.RawMessage(`{"path":"a.go","content":"x"}`), ToolUseID: "call_1", Aliases: aliases}
}

func TestInputJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
		want string
	}{
		{"pre tool use", preToolUse("write_file", "Write"),
			`{"cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"default","session_id":"s1",` +
				`"tool_input":{"path":"a.go","content":"x"},"tool_name":"write_file","tool_use_id":"call_1","transcript_path":""}`},
		{"post tool use", Input{Event: PostToolUse, ToolName: "shell", ToolInput: json.RawMessage(`"not an object"`),
			ToolResponse: &ToolResponse{Content: "exit 0", Summary: "exit 0"}},
			`{"cwd":"","hook_event_name":"PostToolUse","permission_mode":"","session_id":"",` +
				`"tool_input":{},"tool_name":"shell","tool_response":{"content":"exit 0","is_error":false,"summary":"exit 0"},` +
				`"tool_use_id":"","transcript_path":""}`},
		{"stop", Input{Event: Stop, ToolName: "left over"},
			`{"cwd":"","hook_event_name":"Stop","permission_mode":"","session_id":"","stop_hook_active":false,"transcript_path":""}`},
		{"prompt", Input{Event: UserPromptSubmit, Prompt: "fix it"},
			`{"cwd":"","hook_event_name":"UserPromptSubmit","permission_mode":"","prompt":"fix it","session_id":"","transcript_path":""}`},
		{"notification", Input{Event: Notification, Message: "lathe needs your approval", NotificationType: "permission_prompt"},
			`{"cwd":"","hook_event_name":"Notification","message":"lathe needs your approval","notification_type":"permission_prompt",` +
				`"permission_mode":"","session_id":"","transcript_path":""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.in)
			if err != nil || string(b) != tc.want {
				t.Errorf("got  %s %v\nwant %s", b, err, tc.want)
			}
		})
	}
}

func TestMatcher(t *testing.T) {
	for _, tc := range []struct {
		matcher string
		in      Input
		want    bool
	}{
		{"", preToolUse("shell", "Bash"), true},
		{"*", preToolUse("shell", "Bash"), true},
		{"Bash", preToolUse("shell", "Bash"), true},
		{"shell", preToolUse("shell", "Bash"), true},
		{"Edit|Write", preToolUse("edit_file", "Edit", "MultiEdit"), true},
		{"Edit|Write", preToolUse("write_file", "Write"), true},
		{"Edit|Write", preToolUse("read_file", "Read"), false},
		{"Edit", preToolUse("shell_edit"), false}, // a whole name, not a part
		{"mcp__db__.*", Input{Event: PreToolUse, ToolName: "db__query", Server: "db", ServerTool: "query"}, true},
		{"db__.*", Input{Event: PreToolUse, ToolName: "db__query", Server: "db", ServerTool: "query"}, true},
		{"mcp__fs__.*", Input{Event: PreToolUse, ToolName: "db__query", Server: "db", ServerTool: "query"}, false},
		{"startup", Input{Event: SessionStart, Source: "startup"}, true},
		{"resume", Input{Event: SessionStart, Source: "startup"}, false},
		{"anything", Input{Event: Stop}, true}, // Stop has no matcher
		{"(", preToolUse("shell"), false},
	} {
		if got := compile(tc.matcher).matches(tc.in.matchKeys()); got != tc.want {
			t.Errorf("%q on %s %s%s: %v, want %v", tc.matcher, tc.in.Event, tc.in.ToolName, tc.in.Source, got, tc.want)
		}
	}
}

func TestDecisions(t *testing.T) {
	for _, tc := range []struct {
		name, event, body string
		check             func(t *testing.T, o Outcome)
	}{
		{"exit 0, text for the user", PreToolUse, `echo "looks fine"`, func(t *testing.T, o Outcome) {
			r := o.Runs[0]
			if o.Block || r.Status != StatusOK || r.Output != "looks fine" || r.Problem != "" || r.ExitCode != 0 {
				t.Errorf("%+v", o)
			}
		}},
		{"exit 2 blocks", PreToolUse, `echo "not in vendor/" >&2; exit 2`, func(t *testing.T, o Outcome) {
			if !o.Block || o.Permission != Deny || o.Reason != "not in vendor/" || o.Runs[0].Status != StatusBlocked {
				t.Errorf("%+v", o)
			}
		}},
		{"exit 2 on Stop", Stop, `echo "the tests fail" >&2; exit 2`, func(t *testing.T, o Outcome) {
			if !o.Block || o.Permission != "" || o.Reason != "the tests fail" {
				t.Errorf("%+v", o)
			}
		}},
		{"another exit code warns", PreToolUse, `echo oops >&2; exit 1`, func(t *testing.T, o Outcome) {
			r := o.Runs[0]
			if o.Block || o.Permission != "" || r.Status != StatusFailed || r.Problem != "exit 1" || r.Output != "oops" || !r.Warn {
				t.Errorf("%+v", o)
			}
		}},
		{"JSON allow with updated input", PreToolUse,
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok","updatedInput":{"path":"b.go"}}}'`,
			func(t *testing.T, o Outcome) {
				if o.Block || o.Permission != Allow || o.PermissionReason != "ok" || string(o.UpdatedInput) != `{"path":"b.go"}` {
					t.Errorf("%+v", o)
				}
				if got := ApplyInput(`{"path":"a.go","content":"x"}`, o.UpdatedInput); got != `{"content":"x","path":"b.go"}` {
					t.Errorf("applied: %s", got)
				}
			}},
		{"JSON deny", PreToolUse, `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"secrets"}}'`,
			func(t *testing.T, o Outcome) {
				if !o.Block || o.Permission != Deny || o.Reason != "secrets" {
					t.Errorf("%+v", o)
				}
			}},
		{"JSON ask", PreToolUse, `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`, func(t *testing.T, o Outcome) {
			if o.Block || o.Permission != Ask {
				t.Errorf("%+v", o)
			}
		}},
		{"JSON block on Stop", Stop, `echo '{"decision":"block","reason":"run the linter first"}'`, func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "run the linter first" {
				t.Errorf("%+v", o)
			}
		}},
		{"JSON continue false", PostToolUse, `echo '{"continue":false,"stopReason":"enough","systemMessage":"stopping"}'`,
			func(t *testing.T, o Outcome) {
				if !o.Stop || o.StopReason != "enough" || o.Runs[0].Output != "stopping" || o.Block {
					t.Errorf("%+v", o)
				}
			}},
		{"JSON suppressed output", PostToolUse, `echo '{"suppressOutput":true,"systemMessage":"quiet"}'`,
			func(t *testing.T, o Outcome) {
				if o.Runs[0].Output != "" {
					t.Errorf("%+v", o)
				}
			}},
		{"additional context", PostToolUse, `echo '{"hookSpecificOutput":{"additionalContext":"gofmt ran"}}'`,
			func(t *testing.T, o Outcome) {
				if len(o.Context) != 1 || o.Context[0] != "gofmt ran" {
					t.Errorf("%+v", o)
				}
			}},
		{"prompt context from stdout", UserPromptSubmit, `echo "branch: main"`, func(t *testing.T, o Outcome) {
			if len(o.Context) != 1 || o.Context[0] != "branch: main" || o.Runs[0].Output != "" {
				t.Errorf("%+v", o)
			}
		}},
		{"invalid JSON is text, with a warning", PreToolUse, `echo '{"decision": block}'`, func(t *testing.T, o Outcome) {
			r := o.Runs[0]
			if o.Block || r.Status != StatusFailed || !strings.Contains(r.Problem, "looks like JSON but is not") ||
				r.Output != `{"decision": block}` {
				t.Errorf("%+v", o)
			}
		}},
		{"megabytes of output", PostToolUse, `head -c 5000000 /dev/zero | tr '\0' x; head -c 3000000 /dev/zero >&2; exit 1`,
			func(t *testing.T, o Outcome) {
				r := o.Runs[0]
				if len(r.Output) > 4200 || !strings.HasSuffix(r.Output, "[… 2995904 bytes cut]") || r.Status != StatusFailed {
					t.Errorf("%d bytes of output, status %s: %.80q", len(r.Output), r.Status, r.Output)
				}
			}},
		{"megabytes of JSON", PreToolUse, `printf '{"reason":"'; head -c 5000000 /dev/zero | tr '\0' x; printf '"}'`,
			func(t *testing.T, o Outcome) {
				if r := o.Runs[0]; r.Status != StatusFailed || !strings.Contains(r.Problem, "its JSON was not read") {
					t.Errorf("%+v", r)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := script(t, dir, "hook.sh", tc.body)
			r := newRunner(t, dir, Hook{Event: tc.event, Command: path})
			in := preToolUse("write_file", "Write")
			in.Event = tc.event
			o := r.Run(t.Context(), in)
			if len(o.Runs) != 1 {
				t.Fatalf("%d runs", len(o.Runs))
			}
			tc.check(t, o)
		})
	}
}

// TestProtocol: the hook gets the event on stdin, runs in the workspace,
// and finds it in CLAUDE_PROJECT_DIR.
func TestProtocol(t *testing.T) {
	dir := t.TempDir()
	path := script(t, dir, "hook.sh", `cat > "$CLAUDE_PROJECT_DIR/in.json"; pwd > where; echo "$LATHE_PROJECT_DIR" >> where`)
	r := newRunner(t, dir, Hook{Event: PreToolUse, Command: path})
	r.Run(t.Context(), preToolUse("write_file"))
	b, _ := os.ReadFile(filepath.Join(dir, "in.json"))
	var in map[string]any
	if err := json.Unmarshal(b, &in); err != nil || in["tool_name"] != "write_file" || in["hook_event_name"] != "PreToolUse" {
		t.Errorf("stdin: %s (%v)", b, err)
	}
	where, _ := os.ReadFile(filepath.Join(dir, "where"))
	if string(where) != dir+"\n"+dir+"\n" {
		t.Errorf("ran in %q", where)
	}
}

// TestTimeout: a hook that outlives its time limit is killed with every
// process it started, and the run goes on.
func TestTimeout(t *testing.T) {
	dir := t.TempDir()
	path := script(t, dir, "hang.sh", `sleep 300 & echo $! > child; wait`)
	r := newRunner(t, dir, Hook{Event: Stop, Command: path, Timeout: 300 * time.Millisecond})
	o := r.Run(t.Context(), Input{Event: Stop})
	run := o.Runs[0]
	if run.Status != StatusTimeout || o.Block || !strings.Contains(run.Problem, "timed out after 300ms") || !run.Warn {
		t.Fatalf("%+v", run)
	}
	b, err := os.ReadFile(filepath.Join(dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if alive(pid) {
		t.Errorf("the hook's child %d outlived it", pid)
	}
	if o := r.Run(t.Context(), Input{Event: Stop}); o.Runs[0].Warn {
		t.Error("the same hook's second problem is told again")
	}
}

// alive reports whether pid is a process that is not a zombie.
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

// TestCancel: a run cancelled while a hook runs kills it at once.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	path := script(t, dir, "hang.sh", `echo > started; sleep 300`)
	r := newRunner(t, dir, Hook{Event: Stop, Command: path})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan Outcome)
	go func() { done <- r.Run(ctx, Input{Event: Stop}) }()
	if _, err := os.ReadFile(fifo); err != nil { // until the hook is under way
		t.Fatal(err)
	}
	cancel()
	o := <-done
	if o.Runs[0].Status == StatusOK || o.Runs[0].Duration > 30*time.Second {
		t.Errorf("%+v", o.Runs[0])
	}
}

func TestOrderAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	a := script(t, dir, "a.sh", `echo '{"hookSpecificOutput":{"updatedInput":{"path":"a"}}}'`)
	b := script(t, dir, "b.sh", `echo '{"hookSpecificOutput":{"updatedInput":{"path":"b","mode":"x"},"permissionDecision":"allow"}}'`)
	c := script(t, dir, "c.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'; echo ran >> count`)
	r := newRunner(t, dir,
		Hook{Event: PreToolUse, Command: a}, Hook{Event: PreToolUse, Command: b, Matcher: "Write"},
		Hook{Event: PreToolUse, Command: c}, Hook{Event: PreToolUse, Command: c, Matcher: "write_file"},
		Hook{Event: PreToolUse, Command: a, Matcher: "Read"}, Hook{Event: PostToolUse, Command: a})
	o := r.Run(t.Context(), preToolUse("write_file", "Write"))
	if len(o.Runs) != 3 || o.Runs[0].Hook.Command != a || o.Runs[1].Hook.Command != b || o.Runs[2].Hook.Command != c {
		t.Fatalf("runs %+v", o.Runs)
	}
	if string(o.UpdatedInput) != `{"mode":"x","path":"b"}` || o.Permission != Ask {
		t.Errorf("merged: %s %s", o.UpdatedInput, o.Permission)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "count")); string(b) != "ran\n" {
		t.Errorf("the same command ran %q", b)
	}
}
