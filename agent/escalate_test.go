package agent

import (
	"context"
	"encoding/json"
	"testing"

	"lathe/internal/ollamatest"
	"lathe/provider"
	"lathe/tools"
)

// sandboxedProbe is an exec tool whose calls run in a sandbox, recording
// what was lifted for them.
type sandboxedProbe struct {
	confined bool
	ran      []tools.Escalation
}

func (p *sandboxedProbe) Name() string     { return "run" }
func (p *sandboxedProbe) Kind() tools.Kind { return tools.KindExec }
func (p *sandboxedProbe) Spec() provider.ToolSpec {
	return provider.ToolSpec{Name: "run", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}
}
func (p *sandboxedProbe) Prepare(json.RawMessage) (tools.Call, error) {
	return &sandboxedCall{p: p}, nil
}

type sandboxedCall struct {
	p *sandboxedProbe
	e tools.Escalation
}

func (c *sandboxedCall) Subject() string             { return "make test" }
func (c *sandboxedCall) Confined() bool              { return c.p.confined }
func (c *sandboxedCall) Escalate(e tools.Escalation) { c.e = e }
func (c *sandboxedCall) Run(context.Context) (tools.Result, error) {
	c.p.ran = append(c.p.ran, c.e)
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
