package orchestrator

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools"
)

// sandboxedProbe is an exec tool whose calls run in a sandbox, recording
// what was lifted for them. A call run confined reports blocked as what
// the sandbox blocked of it.
type sandboxedProbe struct {
	confined bool
	blocked  []string
	ran      []tools.Escalation
}

func (p *sandboxedProbe) Name() string     { return "run" }
func (p *sandboxedProbe) Kind() tools.Kind { return tools.KindExec }
func (p *sandboxedProbe) Spec() provider.ToolSpec {
	return provider.ToolSpec{Name: "run", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}
}
func (p *sandboxedProbe) Prepare(raw json.RawMessage) (tools.Call, error) {
	var args struct{ Command string }
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	return &sandboxedCall{p: p, command: args.Command}, nil
}

type sandboxedCall struct {
	p       *sandboxedProbe
	command string
	e       tools.Escalation
}

func (c *sandboxedCall) Subject() string             { return c.command }
func (c *sandboxedCall) Confined() bool              { return c.p.confined }
func (c *sandboxedCall) Escalate(e tools.Escalation) { c.e = e }
func (c *sandboxedCall) Run(context.Context, tools.Caller) (tools.Result, error) {
	c.p.ran = append(c.p.ran, c.e)
	if c.p.confined && !c.e.Unconfined {
		return tools.Result{Content: "exit 1", IsError: true, Summary: "exit 1", Blocked: c.p.blocked}, nil
	}
	return tools.Result{Content: "ok", Summary: "ok"}, nil
}

// escalating approves every call, lifting what it is told, and records
// whether it was told the call is sandboxed.
type escalating struct {
	e         tools.Escalation
	sandboxed []bool
}

func (a *escalating) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	a.sandboxed = append(a.sandboxed, req.Sandboxed)
	return Decision{Allow: true, Escalation: a.e}, nil
}

// TestEscalationReachesTheCall: what the user lifts of the sandbox when
// approving reaches that call; the approver is told which calls the
// sandbox confines.
func TestEscalationReachesTheCall(t *testing.T) {
	for _, confined := range []bool{true, false} {
		probe := &sandboxedProbe{confined: confined}
		ap := &escalating{e: tools.Escalation{Network: true}}
		e := newEnv(t, nil, withTools(probe), withApprover(ap))
		e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("run", `{"command":"make test"}`)}},
			ollamatest.Reply{Content: "done"})
		if _, err := e.run(t.Context(), "test it"); err != nil {
			t.Fatal(err)
		}
		want := tools.Escalation{Network: true}
		if !confined {
			want = tools.Escalation{} // nothing to lift
		}
		if len(probe.ran) != 1 || probe.ran[0] != want || len(ap.sandboxed) != 1 || ap.sandboxed[0] != confined {
			t.Errorf("confined %v: ran with %+v, approver told sandboxed %v", confined, probe.ran, ap.sandboxed)
		}
	}
}

// asker is the user behind the rules: it records what it was asked, and
// answers with its decision.
type asker struct {
	d     Decision
	asked []ApprovalRequest
}

func (a *asker) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	a.asked = append(a.asked, req)
	return a.d, nil
}

// TestBlockedCommandIsAskedAgain: once the sandbox blocked something of a
// command, its next call goes to the user (who can lift the sandbox for
// it) even where the rules, --yes included, allow it; the request says
// what was blocked. Once it ran unblocked the rules allow it again.
// Without anyone to ask (a headless run) the rules decide as before; a
// new conversation forgets what was blocked.
func TestBlockedCommandIsAskedAgain(t *testing.T) {
	blocked := []string{"write to /etc/hosts"}
	script := func(e *env, commands ...string) {
		for _, c := range commands {
			e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("run", `{"command":"`+c+`"}`)}})
		}
		e.srv.Script(ollamatest.Reply{Content: "done"})
	}
	for _, rules := range []Rules{{All: true}, {Commands: []string{"make"}}} {
		user := &asker{d: Decision{Allow: true, Escalation: tools.Escalation{Unconfined: true}}}
		rules.Next = user
		probe := &sandboxedProbe{confined: true, blocked: blocked}
		e := newEnv(t, nil, withTools(probe), withApprover(rules))
		// Blocked; asked again, lifted, not blocked; allowed again. Another
		// command is not asked about.
		script(e, "make install", "make install", "make install", "make test")
		if _, err := e.run(t.Context(), "install it"); err != nil {
			t.Fatal(err)
		}
		want := []tools.Escalation{{}, {Unconfined: true}, {}, {}}
		if !slices.Equal(probe.ran, want) || len(user.asked) != 1 || user.asked[0].Subject != "make install" ||
			!slices.Equal(user.asked[0].Blocked, blocked) || !user.asked[0].Sandboxed {
			t.Errorf("rules %+v: ran %+v, want %+v; asked %+v", rules, probe.ran, want, user.asked)
		}
		// The last call was blocked again; a new conversation has no memory of it.
		if err := e.session.Reset(t.Context()); err != nil {
			t.Fatal(err)
		}
		script(e, "make install")
		if _, err := e.run(t.Context(), "again"); err != nil {
			t.Fatal(err)
		}
		if len(user.asked) != 1 {
			t.Errorf("rules %+v: asked %d times, want once before the new conversation: %+v", rules, len(user.asked), user.asked)
		}
	}

	probe := &sandboxedProbe{confined: true, blocked: blocked}
	e := newEnv(t, nil, withTools(probe), withApprover(Rules{All: true}))
	script(e, "make install", "make install")
	if _, err := e.run(t.Context(), "install it"); err != nil {
		t.Fatal(err)
	}
	if want := []tools.Escalation{{}, {}}; !slices.Equal(probe.ran, want) {
		t.Errorf("headless --yes: ran %+v, want %+v", probe.ran, want)
	}
}
