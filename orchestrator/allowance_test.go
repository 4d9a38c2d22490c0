package orchestrator

import (
	"slices"
	"testing"

	"lathe/orchestrator/hooks"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools"
)

// TestPromptAllowanceApprovesItsRequestOnly: the calls a prompt's
// allowance covers run without asking, in that request alone; the next
// request asks again. A write into .git and a command of a shape no rule
// covers are asked about whatever the allowance says.
func TestPromptAllowanceApprovesItsRequestOnly(t *testing.T) {
	user := &asker{d: Decision{Reason: "the user said no"}}
	e := newEnv(t, nil, withApprover(Rules{Next: user}))
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"a.go"}`), call("write", `{"path":".git/hooks/pre-commit"}`)}},
		ollamatest.Reply{Content: "written"},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"b.go"}`)}},
		ollamatest.Reply{Content: "asked"},
	)
	p := Prompt{Text: "/mine", Allow: Allowance{Tools: []string{"write"}}}
	if _, err := e.session.RunPrompt(t.Context(), p, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if got := e.log.all(); !slices.Contains(got, "write:start:a.go") || slices.Contains(got, "write:start:.git/hooks/pre-commit") {
		t.Errorf("calls = %q, want a.go written and .git left alone", got)
	}
	if len(user.asked) != 1 || user.asked[0].Subject != ".git/hooks/pre-commit" {
		t.Errorf("asked %+v, want only the write into .git", user.asked)
	}
	user.asked = nil
	if _, err := e.run(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	if len(user.asked) != 1 || user.asked[0].Subject != "b.go" {
		t.Errorf("the next request: asked %+v, want the write of b.go asked about", user.asked)
	}
	if slices.Contains(e.log.all(), "write:start:b.go") {
		t.Error("the allowance outlived its request: b.go was written")
	}
}

// TestPromptAllowanceCommands: a prefix covers the commands that start
// with it, an exact command only itself, neither a command that chains
// another; a hook that asks the user wins.
func TestPromptAllowanceCommands(t *testing.T) {
	user := &asker{d: Decision{Reason: "no"}}
	run := &probe{name: "run", kind: tools.KindExec}
	e := newEnv(t, nil, withTools(run), withApprover(Rules{Next: user}))
	run.log = e.log
	cmds := []string{"git diff main", "git status", "git status -s", "git diff; rm -rf x", "git diffx"}
	var calls []ollamatest.ToolCall
	for _, c := range cmds {
		calls = append(calls, call("run", `{"path":"`+c+`"}`))
	}
	e.srv.Script(ollamatest.Reply{ToolCalls: calls[:1]}, ollamatest.Reply{ToolCalls: calls[1:2]},
		ollamatest.Reply{ToolCalls: calls[2:3]}, ollamatest.Reply{ToolCalls: calls[3:4]},
		ollamatest.Reply{ToolCalls: calls[4:]}, ollamatest.Reply{Content: "done"})
	p := Prompt{Text: "/mine", Allow: Allowance{Prefixes: []string{"git diff"}, Commands: []string{"git status"}}}
	if _, err := e.session.RunPrompt(t.Context(), p, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	var asked []string
	for _, r := range user.asked {
		asked = append(asked, r.Subject)
	}
	if want := []string{"git status -s", "git diff; rm -rf x", "git diffx"}; !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	if got := e.log.all(); !slices.Equal(got, []string{"run:start:git diff main", "run:end:git diff main", "run:start:git status", "run:end:git status"}) {
		t.Errorf("ran %q", got)
	}
}

// TestPromptAllowanceYieldsToHooks: a PreToolUse hook that asks puts the
// question whatever the prompt allows; one that denies wins.
func TestPromptAllowanceYieldsToHooks(t *testing.T) {
	for _, tc := range []struct {
		decision string
		asked    bool
	}{{"ask", true}, {"deny", false}} {
		t.Run(tc.decision, func(t *testing.T) {
			user := &asker{}
			e := newEnv(t, nil, withApprover(Rules{Next: user}), withHooks(t, hooks.Hook{Event: hooks.PreToolUse,
				Command: `echo '{"hookSpecificOutput":{"permissionDecision":"` + tc.decision + `"}}'`}))
			e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"a"}`)}}, ollamatest.Reply{Content: "ok"})
			p := Prompt{Text: "/mine", Allow: Allowance{Tools: []string{"write"}}}
			if _, err := e.session.RunPrompt(t.Context(), p, func(Event) {}); err != nil {
				t.Fatal(err)
			}
			if asked := len(user.asked) > 0; asked != tc.asked {
				t.Errorf("asked %v, want %v", asked, tc.asked)
			}
			if ran := e.log.all(); len(ran) > 0 {
				t.Errorf("ran %q", ran)
			}
		})
	}
}
