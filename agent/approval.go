package agent

import (
	"context"
	"slices"
	"strings"

	"lathe/tools"
)

// Approver decides whether a call whose kind asks first (it writes files or
// runs a command) may run. The loop waits for the answer; an error (ctx
// done) interrupts the run.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ApprovalRequest is a validated call waiting for approval.
type ApprovalRequest struct {
	Tool    string
	Kind    tools.Kind
	Subject string // path or command
	Args    string // arguments as JSON
	Preview string // the change as a unified diff, for calls that write
	Call    tools.Call
}

// Decision is an approver's answer. Reason, when denying, is shown to the
// model.
type Decision struct {
	Allow  bool
	Reason string
}

// Rules approve calls by configuration: everything (--yes), whole tools,
// or commands (of the tools that run them) by prefix. What the rules do not allow goes to Next;
// with no Next it is denied with Denial as the reason.
type Rules struct {
	All      bool
	Tools    []string
	Commands []string
	Next     Approver
	Denial   string
}

// Approve implements Approver.
func (r Rules) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	if r.All || slices.Contains(r.Tools, req.Tool) {
		return Decision{Allow: true}, nil
	}
	if req.Kind == tools.KindExec && slices.ContainsFunc(r.Commands, func(p string) bool { return commandHasPrefix(req.Subject, p) }) {
		return Decision{Allow: true}, nil
	}
	if r.Next != nil {
		return r.Next.Approve(ctx, req)
	}
	return Decision{Reason: r.Denial}, nil
}

// commandHasPrefix reports whether command is prefix, or prefix followed by
// arguments, with nothing that could chain another command, substitute
// one, or redirect output: "go test ./..." matches "go test", but
// "go test; rm -rf ~" and "go test > x" do not.
func commandHasPrefix(command, prefix string) bool {
	command, prefix = strings.TrimSpace(command), strings.TrimSpace(prefix)
	if prefix == "" || strings.ContainsAny(command, ";&|<>`$()\n\r\\") {
		return false
	}
	return command == prefix || strings.HasPrefix(command, prefix+" ")
}
