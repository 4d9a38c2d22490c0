package orchestrator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools"
)

// runner is a probe that runs commands: what a command file's !`…` goes
// through.
type runner struct{ probe }

func (r *runner) CommandArgs(command string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"path": command})
	return b
}

// TestExpandRunsCommandsAsCalls: the commands a prompt's expansion runs
// are asked for, shown and confined as calls are, and their output goes
// into the prompt; a denied one says so.
func TestExpandRunsCommandsAsCalls(t *testing.T) {
	log := &callLog{}
	sh := &runner{probe{name: "sh", kind: tools.KindExec, log: log, fn: func(_ context.Context, args map[string]any) (tools.Result, error) {
		return tools.Result{Content: "exit 0\n M main.go", Summary: "exit 0"}, nil
	}}}
	a := &asker{d: Decision{Allow: true}}
	e := newEnv(t, nil, withTools(sh), withApprover(a))
	e.srv.Script(ollamatest.Reply{Content: "Looks fine."})
	p := Prompt{Text: "/review main", Expand: func(ctx context.Context, run func(context.Context, string) string) string {
		return "Review this:\n" + run(ctx, "git status --short")
	}}
	res, err := e.session.RunPrompt(t.Context(), p, func(ev Event) { e.events = append(e.events, ev) })
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("%+v %v", res, err)
	}
	if len(a.asked) != 1 || a.asked[0].Subject != "git status --short" || a.asked[0].Kind != tools.KindExec {
		t.Errorf("asked %+v", a.asked)
	}
	user := e.srv.ChatRequests()[0].Messages[1].Content
	if user != "Review this:\n[output of `git status --short`]\nexit 0\n M main.go\n[end of output]" {
		t.Errorf("the prompt sent:\n%s", user)
	}
	if fin := eventsOf[ToolFinished](e.events); len(fin) != 1 || fin[0].Outcome != OutcomeOK || fin[0].Name != "sh" {
		t.Errorf("finished %+v", fin)
	}
	if res.ToolCalls != 0 {
		t.Errorf("%d tool calls counted for the model", res.ToolCalls)
	}

	a.d = Decision{Reason: "not now"}
	e.srv.Script(ollamatest.Reply{Content: "ok"})
	if _, err := e.session.RunPrompt(t.Context(), p, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	msgs := e.srv.ChatRequests()[1].Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "[`git status --short` was not run: denied: ") {
		t.Errorf("denied: %q", got)
	}
}
