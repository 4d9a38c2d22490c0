package acp

import (
	"context"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/tools"
)

// asker asks the user, through the client's session/request_permission,
// what the TUI's dialogs ask: whether a call may run (after the grants
// made in the session, as the TUI keeps them), and what to do with a plan
// or with ask mode's wish to start a task. The run waits for the answer;
// session/cancel ends the wait.
type asker struct {
	s *acpSession

	grants orchestrator.Grants // for the session

	mu     sync.Mutex
	stream *stream // the run under way's
}

var (
	_ orchestrator.Approver = (*asker)(nil)
	_ mode.Reviewer         = (*asker)(nil)
)

// The options offered, by id.
const (
	optAllow      = "allow"
	optSession    = "allow_session"
	optUnconfined = "allow_unconfined"
	optNetwork    = "allow_network"
	optDeny       = "deny"
)

// use makes st the run whose calls approvals are about.
func (a *asker) use(st *stream) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stream = st
}

// Approve implements orchestrator.Approver, as the TUI's approver does:
// a grant answers for the user, but not for a call the sandbox blocked
// something of last time, nor one a hook wants the user to decide.
func (a *asker) Approve(ctx context.Context, req orchestrator.ApprovalRequest) (orchestrator.Decision, error) {
	if a.grants.Cover(ctx, req) {
		return orchestrator.Decision{Allow: true}, nil
	}
	a.mu.Lock()
	st := a.stream
	a.mu.Unlock()
	call := sdk.ToolCallUpdate{Title: sdk.Ptr(title(req.Tool, req.Kind, req.Subject)),
		Kind: sdk.Ptr(toolKind(req.Kind, req.Call)), Status: sdk.Ptr(sdk.ToolCallStatusPending)}
	if st != nil {
		call.ToolCallId, _ = st.idOf(req.Call)
	}
	if call.ToolCallId == "" {
		call.ToolCallId = sdk.ToolCallId("lathe-approval")
	}
	options := []sdk.PermissionOption{
		{OptionId: optAllow, Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once"},
		{OptionId: optSession, Kind: sdk.PermissionOptionKindAllowAlways, Name: "Allow " + grantName(req) + " for this session"},
	}
	if req.Sandboxed {
		options = append(options,
			sdk.PermissionOption{OptionId: optUnconfined, Kind: sdk.PermissionOptionKindAllowOnce, Name: "Run outside the sandbox, this once"},
			sdk.PermissionOption{OptionId: optNetwork, Kind: sdk.PermissionOptionKindAllowOnce, Name: "Run with network access, this once"})
	}
	options = append(options, sdk.PermissionOption{OptionId: optDeny, Kind: sdk.PermissionOptionKindRejectOnce, Name: "Deny"})
	if len(req.Blocked) > 0 {
		call.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(
			"The sandbox blocked it last time: " + strings.Join(req.Blocked, "; ")))}
	}
	choice, err := a.ask(ctx, call, options)
	if err != nil {
		return orchestrator.Decision{}, err
	}
	switch choice {
	case optAllow:
		return orchestrator.Decision{Allow: true}, nil
	case optSession:
		a.grants.Grant(req)
		return orchestrator.Decision{Allow: true}, nil
	case optUnconfined:
		return orchestrator.Decision{Allow: true, Escalation: tools.Escalation{Unconfined: true}}, nil
	case optNetwork:
		return orchestrator.Decision{Allow: true, Escalation: tools.Escalation{Network: true}}, nil
	case "":
		return orchestrator.Decision{Reason: "the user interrupted the request"}, nil
	}
	return orchestrator.Decision{Reason: "the user denied it"}, nil
}

// ask asks the client, and returns the option chosen: "" when the client
// cancelled the question. An error is ctx's, or the client's failure.
func (a *asker) ask(ctx context.Context, call sdk.ToolCallUpdate, options []sdk.PermissionOption) (sdk.PermissionOptionId, error) {
	resp, err := a.s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: a.s.id, ToolCall: call, Options: options})
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		return "", err
	}
	if sel := resp.Outcome.Selected; sel != nil {
		return sel.OptionId, nil
	}
	return "", nil
}

// grantName says what "allow for this session" allows: this exact
// command, or the tool.
func grantName(req orchestrator.ApprovalRequest) string {
	if req.Kind == tools.KindExec {
		return "this command"
	}
	return req.Tool
}

// Review implements mode.Reviewer: plan mode's plan, carried out or
// not.
func (a *asker) Review(ctx context.Context, p plan.Plan) (mode.Verdict, error) {
	var steps []string
	for i, s := range p.Steps {
		steps = append(steps, strconv.Itoa(i+1)+". "+s.Text)
	}
	body := strings.TrimSpace(p.Summary + "\n\n" + strings.Join(steps, "\n"))
	// Not now: the run ends with the plan, which the next prompt can
	// change.
	return a.verdict(ctx, "Carry out this plan?", body, "Carry it out (build mode)", "Not yet",
		mode.Verdict{Decision: mode.Keep})
}

// StartTask implements mode.Reviewer: ask mode giving way to build mode.
func (a *asker) StartTask(ctx context.Context, goal string) (mode.Verdict, error) {
	return a.verdict(ctx, "Switch to build mode to work on this?", goal, "Switch to build mode", "Stay in ask mode",
		mode.Verdict{Decision: mode.Reject, Feedback: "the user wants to stay in ask mode"})
}

// verdict asks a yes-or-no question about the session's mode.
// A no is refused.
func (a *asker) verdict(ctx context.Context, question, body, yes, no string, refused mode.Verdict) (mode.Verdict, error) {
	call := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId("lathe-mode-" + strconv.Itoa(a.s.runSeq())), Title: sdk.Ptr(question),
		Kind: sdk.Ptr(sdk.ToolKindThink), Status: sdk.Ptr(sdk.ToolCallStatusPending),
		Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(body))}}
	choice, err := a.ask(ctx, call, []sdk.PermissionOption{
		{OptionId: optAllow, Kind: sdk.PermissionOptionKindAllowOnce, Name: yes},
		{OptionId: optDeny, Kind: sdk.PermissionOptionKindRejectOnce, Name: no},
	})
	switch {
	case err != nil:
		return mode.Verdict{}, err
	case choice == optAllow:
		return mode.Verdict{Decision: mode.Approve}, nil
	}
	return refused, nil
}
