package orchestrator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/hooks"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools"
)

// hookScript writes an executable bash script and returns its path.
func hookScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(path, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// withHooks runs the hooks given, each a script body, as the user's own.
func withHooks(t *testing.T, hs ...hooks.Hook) envOption {
	dir := t.TempDir()
	for i := range hs {
		hs[i].Command = hookScript(t, hs[i].Command)
	}
	return func(o *Options) {
		o.Hooks = hooks.New(hooks.Options{Hooks: hs, Dir: dir, Environ: os.Environ(), Log: zerolog.Nop()})
	}
}

func TestPreToolUseHookBlocksAWrite(t *testing.T) {
	a := &asker{d: Decision{Allow: true}}
	e := newEnv(t, nil, withApprover(a),
		withHooks(t, hooks.Hook{Event: hooks.PreToolUse, Matcher: "write", Command: `echo "no writes under vendor/" >&2; exit 2`}))
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"vendor/x.go"}`), call("read", `{"path":"a"}`)}},
		ollamatest.Reply{Content: "I left vendor/ alone."})
	res, err := e.run(t.Context(), "edit vendor")
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("%+v %v", res, err)
	}
	if got := e.log.all(); !slices.Equal(got, []string{"read:start:a", "read:end:a"}) {
		t.Errorf("tools ran: %v (the write must not)", got)
	}
	if len(a.asked) != 0 {
		t.Errorf("the approver was asked about a blocked call: %+v", a.asked)
	}
	results := lastToolResults(t, e.srv)
	if !strings.Contains(results[0].Content, "blocked: a hook the user configured did not allow this call: no writes under vendor/") {
		t.Errorf("result: %q", results[0].Content)
	}
	fin := eventsOf[ToolFinished](e.events)
	if fin[0].Outcome != OutcomeDenied || len(fin[0].HookNotes) != 1 || fin[0].HookNotes[0] != "PreToolUse hook blocked it: no writes under vendor/" {
		t.Errorf("finished %+v", fin[0])
	}
	ran := eventsOf[HookRan](e.events)
	if len(ran) != 1 || ran[0].Event != hooks.PreToolUse || ran[0].Tool != "write" || ran[0].Result() != "blocked" || ran[0].Index != 0 {
		t.Errorf("hook events %+v (the read matches no hook)", ran)
	}
}

func TestPreToolUseHookChangesTheCall(t *testing.T) {
	e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.PreToolUse,
		Command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"path":"safe.txt"}}}'`}))
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"/etc/passwd","content":"x"}`)}},
		ollamatest.Reply{Content: "done"})
	if _, err := e.run(t.Context(), "w"); err != nil {
		t.Fatal(err)
	}
	if got := e.log.all(); !slices.Equal(got, []string{"write:start:safe.txt", "write:end:safe.txt"}) {
		t.Errorf("ran %v", got)
	}
	started := eventsOf[ToolStarted](e.events)
	if started[0].Subject != "safe.txt" || started[0].Args != `{"content":"x","path":"safe.txt"}` {
		t.Errorf("started %+v", started[0])
	}
}

func TestPreToolUseHookInvalidInput(t *testing.T) {
	e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.PreToolUse,
		Command: `echo '{"hookSpecificOutput":{"updatedInput":{"invalid":true}}}'`}))
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"a"}`)}}, ollamatest.Reply{Content: "ok"})
	if _, err := e.run(t.Context(), "w"); err != nil {
		t.Fatal(err)
	}
	if len(e.log.all()) != 0 {
		t.Errorf("ran %v", e.log.all())
	}
	if r := lastToolResults(t, e.srv)[0].Content; !strings.Contains(r, `changed this call's arguments into ones that are not valid (argument "invalid" is not allowed)`) {
		t.Errorf("result %q", r)
	}
}

// TestPreToolUseHookPermission: allow skips the question, ask puts it
// even for a call that would not ask; deny wins over a grant.
func TestPreToolUseHookPermission(t *testing.T) {
	for _, tc := range []struct {
		decision string
		rules    Rules
		call     string
		asked    bool
		ran      bool
	}{
		{"allow", Rules{}, "write", false, true},
		{"ask", Rules{}, "read", true, false},
		{"ask", Rules{All: true}, "write", true, false},                  // someone to ask: --yes does not answer for them
		{"deny", Rules{Tools: []string{"write"}}, "write", false, false}, // a grant does not outweigh it
	} {
		t.Run(tc.decision+" "+tc.call, func(t *testing.T) {
			a := &asker{}
			rules := tc.rules
			rules.Next = a
			e := newEnv(t, nil, withApprover(rules), withHooks(t, hooks.Hook{Event: hooks.PreToolUse,
				Command: `echo '{"hookSpecificOutput":{"permissionDecision":"` + tc.decision + `"}}'`}))
			e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call(tc.call, `{"path":"a"}`)}}, ollamatest.Reply{Content: "ok"})
			if _, err := e.run(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			if asked := len(a.asked) > 0; asked != tc.asked || asked && !a.asked[0].Ask {
				t.Errorf("asked %v (%+v), want %v", asked, a.asked, tc.asked)
			}
			if ran := len(e.log.all()) > 0; ran != tc.ran {
				t.Errorf("ran %v, want %v", ran, tc.ran)
			}
		})
	}
}

func TestPostToolUseHookTellsTheModel(t *testing.T) {
	e := newEnv(t, nil, withHooks(t,
		hooks.Hook{Event: hooks.PostToolUse, Matcher: "write", Command: `grep -q '"tool_response":{"content":"write a.go ok"' && echo "gofmt: a.go is not formatted" >&2 && exit 2`},
		hooks.Hook{Event: hooks.PostToolUse, Command: `echo '{"hookSpecificOutput":{"additionalContext":"2 files changed"}}'`}))
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"a.go"}`)}}, ollamatest.Reply{Content: "ok"})
	if _, err := e.run(t.Context(), "w"); err != nil {
		t.Fatal(err)
	}
	got := lastToolResults(t, e.srv)[0].Content
	want := "write a.go ok\n\nA hook the user configured, run after this call, says: gofmt: a.go is not formatted\n\nA hook the user configured adds:\n2 files changed"
	if got != want {
		t.Errorf("result:\n%s\nwant:\n%s", got, want)
	}
}

// TestStopHookSendsTheModelBackOnce: a Stop hook that blocks while
// stop_hook_active is false sends the model back to work once.
func TestStopHookSendsTheModelBackOnce(t *testing.T) {
	e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.Stop,
		Command: `if grep -q '"stop_hook_active":false'; then echo "go test fails: TestParse" >&2; exit 2; fi`}))
	e.srv.Script(ollamatest.Reply{Content: "Done."}, ollamatest.Reply{Content: "Fixed TestParse too."})
	res, err := e.run(t.Context(), "fix the parser")
	if err != nil || res.StopReason != StopDone || res.Turns != 2 || res.Text != "Fixed TestParse too." {
		t.Fatalf("%+v %v", res, err)
	}
	msgs := e.srv.ChatRequests()[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != "user" || !strings.Contains(last.Content, "You are not done yet") || !strings.Contains(last.Content, "go test fails: TestParse") {
		t.Errorf("the second request ends with %+v", last)
	}
	if n := len(eventsOf[HookRan](e.events)); n != 2 {
		t.Errorf("%d Stop hook runs, want 2", n)
	}
}

// TestStopHookThatAlwaysBlocks ends the run at the turn limit, not in a
// loop.
func TestStopHookThatAlwaysBlocks(t *testing.T) {
	e := newEnv(t, nil, withLimits(func(l *config.Limits) { l.MaxTurns = 3 }),
		withHooks(t, hooks.Hook{Event: hooks.Stop, Command: `echo "never done" >&2; exit 2`}))
	e.srv.Script(ollamatest.Reply{Content: "Done."}, ollamatest.Reply{Content: "Done!"}, ollamatest.Reply{Content: "Really done."})
	res, err := e.run(t.Context(), "x")
	if err != nil || res.StopReason != StopMaxTurns || !res.StopReason.Limit() || res.Turns != 3 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestUserPromptSubmitHook(t *testing.T) {
	t.Run("blocks", func(t *testing.T) {
		e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.UserPromptSubmit,
			Command: `grep -q password && { echo "the prompt holds a password" >&2; exit 2; }; exit 0`}))
		res, err := e.run(t.Context(), "my password is hunter2")
		if err != nil || res.StopReason != StopHook || res.HookReason != "the prompt holds a password" || !res.StopReason.Limit() {
			t.Fatalf("%+v %v", res, err)
		}
		if n := len(e.srv.ChatRequests()); n != 0 {
			t.Errorf("%d requests sent", n)
		}
		if got := res.Explain(config.Limits{}); got != "stopped by a hook: the prompt holds a password" {
			t.Errorf("explained: %q", got)
		}
	})
	t.Run("adds context", func(t *testing.T) {
		e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.UserPromptSubmit, Command: `echo "branch: main"`}))
		e.srv.Script(ollamatest.Reply{Content: "ok"})
		if _, err := e.run(t.Context(), "status?"); err != nil {
			t.Fatal(err)
		}
		user := e.srv.ChatRequests()[0].Messages[1]
		if user.Content != "status?\n\nA hook the user configured adds:\nbranch: main" {
			t.Errorf("user message %q", user.Content)
		}
	})
}

func TestHookContinueFalseStopsTheRun(t *testing.T) {
	e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.PostToolUse, Matcher: "read",
		Command: `echo '{"continue": false, "stopReason": "budget for today is spent"}'`}))
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}})
	res, err := e.run(t.Context(), "x")
	if err != nil || res.StopReason != StopHook || res.HookReason != "budget for today is spent" || res.Turns != 1 {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestHangingHookIsToldOnce: a hook past its time limit is killed, the
// run goes on, and the user is warned once, not at every call.
func TestHangingHookIsToldOnce(t *testing.T) {
	e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.PreToolUse, Command: `sleep 60`, Timeout: 200 * time.Millisecond}))
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"b"}`)}}, ollamatest.Reply{Content: "ok"})
	res, err := e.run(t.Context(), "x")
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("%+v %v", res, err)
	}
	if n := len(e.log.all()); n != 4 {
		t.Errorf("calls ran: %v", e.log.all())
	}
	var warnings []string
	for _, w := range eventsOf[Warning](e.events) {
		warnings = append(warnings, w.Text)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "timed out after 200ms") {
		t.Errorf("warnings %q", warnings)
	}
	if fin := eventsOf[ToolFinished](e.events); !strings.Contains(strings.Join(fin[1].HookNotes, "\n"), "timed out") {
		t.Errorf("the second call's card does not say so: %+v", fin[1])
	}
}

func TestSessionHooks(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	e := newEnv(t, nil, withHooks(t,
		hooks.Hook{Event: hooks.SessionStart, Command: `grep -o '"source":"[a-z]*"' >> ` + log + `; echo "Open issue: #12"`},
		hooks.Hook{Event: hooks.SessionEnd, Command: `grep -o '"reason":"[a-z_]*"' >> ` + log},
		hooks.Hook{Event: hooks.Notification, Command: `grep -o '"notification_type":"[a-z_]*"' >> ` + log}))
	e.srv.Script(ollamatest.Reply{Content: "ok"}, ollamatest.Reply{Content: "ok"})
	if _, err := e.run(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	system := e.srv.ChatRequests()[0].Messages[0].Content
	if !strings.HasSuffix(system, "From the user's session-start hooks:\nOpen issue: #12\n") {
		t.Errorf("system prompt ends:\n%s", system[max(0, len(system)-200):])
	}
	if err := e.session.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "y"); err != nil {
		t.Fatal(err)
	}
	e.session.End(t.Context(), "prompt_input_exit", nil)
	b, _ := os.ReadFile(log)
	want := `"source":"startup"` + "\n" + `"notification_type":"run_finished"` + "\n" + `"reason":"clear"` + "\n" +
		`"source":"clear"` + "\n" + `"notification_type":"run_finished"` + "\n" + `"reason":"prompt_input_exit"` + "\n"
	if string(b) != want {
		t.Errorf("hooks ran:\n%s\nwant:\n%s", b, want)
	}
}

// TestSessionEndHookReadsTheWholeTranscript: a SessionEnd hook, the only
// hook, finds the conversation it ends at transcript_path, to the last
// reply: after /new (clear) the one left, at the end the last one.
func TestSessionEndHookReadsTheWholeTranscript(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "log")
	e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.SessionEnd,
		Command: `python3 -c '
import json, sys
path = json.load(sys.stdin)["transcript_path"]
lines = [json.loads(l) for l in open(path)] if path else []
print(len(lines), lines[0]["message"]["content"] if lines else "", lines[-1]["message"]["content"][-1]["text"] if lines else "")
' >> ` + log}), func(o *Options) { o.Transcripts = hooks.NewTranscripts(dir, nil) })
	e.srv.Script(ollamatest.Reply{Content: "first answer"}, ollamatest.Reply{Content: "second answer"},
		ollamatest.Reply{Content: "third answer"})
	for _, p := range []string{"one", "two"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.session.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "three"); err != nil { // the "clear" hooks run before it
		t.Fatal(err)
	}
	e.session.End(t.Context(), "prompt_input_exit", nil)
	b, _ := os.ReadFile(log)
	if want := "4 one second answer\n2 three third answer\n"; string(b) != want {
		t.Errorf("the SessionEnd hooks saw:\n%s\nwant:\n%s", b, want)
	}
}

func TestPreCompactHook(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.PreCompact, Matcher: "manual", Command: `grep -o '"trigger":"[a-z]*"' >> ` + log}))
	long := strings.Repeat("a long answer ", 200) // enough that a summary gains something
	e.srv.Script(ollamatest.Reply{Content: long}, ollamatest.Reply{Content: long}, ollamatest.Reply{Content: "summary"})
	for _, p := range []string{"one", "two"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.session.Compact(t.Context(), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(log); string(b) != `"trigger":"manual"`+"\n" {
		t.Errorf("log %q", b)
	}
}

// TestNoHooksNoCost: without hooks, nothing of them shows.
func TestNoHooksNoCost(t *testing.T) {
	e := newEnv(t, nil, withTools(&probe{name: "read", kind: tools.KindRead, log: &callLog{}}))
	e.srv.Script(ollamatest.Reply{Content: "ok"})
	if _, err := e.run(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	if n := len(eventsOf[HookRan](e.events)); n != 0 {
		t.Errorf("%d hook events without hooks", n)
	}
}

// TestStopHookReadsTheTranscript: transcript_path names the conversation
// in Claude Code's transcript format, up to the reply that ends the run,
// so a Stop hook written for Claude Code finds the last reply and the
// calls before it where it looks.
func TestStopHookReadsTheTranscript(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, nil, withHooks(t, hooks.Hook{Event: hooks.Stop,
		Command: `in=$(cat); [[ $in == *'"stop_hook_active":true'* ]] && exit 0
path=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["transcript_path"])' <<<"$in")
python3 - "$path" <<'PY' >&2
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
last = lines[-1]
uses = [b["name"] for l in lines if l["type"] == "assistant" for b in l["message"]["content"] if b["type"] == "tool_use"]
results = [b["content"] for l in lines if l["type"] == "user" and isinstance(l["message"]["content"], list) for b in l["message"]["content"]]
print("last:", last["type"], last["message"]["content"][-1]["text"], "| used:", ",".join(uses), "| results:", len(results), "| first:", lines[0]["message"]["content"])
PY
exit 2`}), func(o *Options) { o.Transcripts = hooks.NewTranscripts(dir, nil) })
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}},
		ollamatest.Reply{Content: "Read it."}, ollamatest.Reply{Content: "Still read."})
	res, err := e.run(t.Context(), "read a")
	if err != nil || res.Turns != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	msgs := e.srv.ChatRequests()[2].Messages
	told := msgs[len(msgs)-1].Content
	if want := "last: assistant Read it. | used: read | results: 1 | first: read a"; !strings.Contains(told, want) {
		t.Errorf("the Stop hook said %q, want %q", told, want)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 || filepath.Base(files[0]) != e.session.Snapshot().ID+".jsonl" {
		t.Errorf("transcripts %v", files)
	}
}
