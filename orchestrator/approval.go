package orchestrator

import (
	"context"
	"path/filepath"
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
	// Sandboxed says the call would run inside the sandbox, which the
	// decision may lift for it (Decision.Escalation).
	Sandboxed bool
	// Note says what undo could not take back of the call ("too large to
	// checkpoint"); empty when it could.
	Note string
	// Blocked, for a sandboxed call, is what the sandbox blocked the last
	// time this exact command ran in the session; empty when nothing. The
	// user may want to lift the sandbox for it this time: Rules pass the
	// request on to Next, when there is one, even when they cover it.
	Blocked []string
	// Ask says a PreToolUse hook asked that the user decide: grants and
	// rules do not answer for the user then.
	Ask bool
	// Server names the MCP server a call of KindExternal goes to, and
	// ServerTool the tool as the server names it; Tool is then the tool
	// as the model calls it (also through mcp_call), and Args the
	// arguments as they will be sent.
	Server, ServerTool string
}

// Decision is an approver's answer. Reason, when denying, is shown to the
// model. Escalation, when allowing a sandboxed call, lifts part of the
// sandbox for that call alone.
type Decision struct {
	Allow      bool
	Reason     string
	Escalation tools.Escalation
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

// Approve implements Approver. A tool rule does not cover a write into a
// .git directory: git runs what its config and hooks name, later and
// outside any sandbox, so a change there is always the user's decision.
// Nor does a command rule cover a call that says no rule may (a git
// command where the repository's config names programs git runs).
// --yes approves it; while commands are sandboxed, the file tools refuse
// the paths the sandbox protects whoever approved.
//
// A command the sandbox blocked something of the last time it ran
// (req.Blocked) goes to Next, when there is one, rules or --yes aside:
// the user there can let it run outside the sandbox, or with the network.
// Without a Next the rules decide as for any call.
func (r Rules) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	switch {
	case r.asksPerson(req):
		return r.Next.Approve(ctx, req)
	case r.All || !req.Ask && r.covers(req):
		return Decision{Allow: true}, nil
	}
	denial := r.Denial
	if r.commandRule(req) {
		if why := unruled(req.Call); why != "" {
			denial = "a rule allows this command, but not here: " + why + "; " + denial
		}
	}
	return Decision{Reason: denial}, nil
}

// unruled says why no command rule may cover call, though one matches
// its command ("" when one may): a git command in a repository whose
// config makes git run programs.
func unruled(call tools.Call) string {
	if u, ok := tools.AsUnruled(call); ok {
		return u.Unruled()
	}
	return ""
}

// asksPerson reports whether the rules pass req on to Next: a command
// the sandbox blocked something of (someone who can lift the sandbox for
// it), a call a hook wants the user to decide on, and what the rules do
// not cover.
func (r Rules) asksPerson(req ApprovalRequest) bool {
	return r.Next != nil && (len(req.Blocked) > 0 || req.Ask || !r.All && !r.covers(req))
}

// covers reports whether a rule allows req (--yes aside).
func (r Rules) covers(req ApprovalRequest) bool {
	if slices.Contains(r.Tools, req.Tool) && !(req.Kind == tools.KindWrite && inGitDir(req.Subject)) {
		return true
	}
	return r.commandRule(req) && unruled(req.Call) == ""
}

// commandRule reports whether a command rule matches req's command.
func (r Rules) commandRule(req ApprovalRequest) bool {
	return req.Kind == tools.KindExec && slices.ContainsFunc(r.Commands, func(p string) bool { return commandAllowed(req.Subject, p) })
}

// inGitDir reports whether path (as a write's subject names it) is in a
// .git directory, the workspace's or a nested repository's.
func inGitDir(path string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(filepath.Clean(path)), "/"), ".git")
}

// Allowance approves calls for one request without asking anyone: the
// tools it names, the commands its prefixes cover (as approval.commands
// do) and the commands it names exactly. The limits of Rules hold: it
// covers no write into a .git directory, no command of a shape a command
// rule refuses or in a repository whose config makes git run programs,
// and no call a PreToolUse hook wants the user to decide on.
type Allowance struct {
	Tools    []string
	Prefixes []string
	Commands []string
}

// approves reports whether a allows req. A command the sandbox blocked
// something of the last time it ran goes to an approver that can ask
// the user (who may lift the sandbox for it); where none can, it runs in
// the sandbox again.
func (a Allowance) approves(req ApprovalRequest, next Approver) bool {
	if req.Ask || !a.covers(req) {
		return false
	}
	rules, ok := next.(Rules)
	return len(req.Blocked) == 0 || ok && rules.Next == nil
}

// covers reports whether a rule of a matches req.
func (a Allowance) covers(req ApprovalRequest) bool {
	if (Rules{Tools: a.Tools, Commands: a.Prefixes}).covers(req) {
		return true
	}
	return req.Kind == tools.KindExec && unruled(req.Call) == "" &&
		slices.ContainsFunc(a.Commands, func(c string) bool { return commandExact(req.Subject, c) })
}
