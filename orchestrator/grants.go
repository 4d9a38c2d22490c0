package orchestrator

import (
	"context"
	"slices"
	"sync"

	"lathe/tools"
)

// Grants are what the user allowed for the rest of a session from an
// approval question: tools that write, and exact commands. The UI's
// dialog and lathe acp's permission requests keep them alike. The zero
// value has none; it is safe for concurrent use.
type Grants struct {
	mu       sync.Mutex
	tools    []string
	commands []string // exact commands
}

// Cover reports whether the grants answer req for the user: never for a
// call the sandbox blocked something of the last time it ran (the user
// may lift the sandbox for it), nor for one a hook wants the user to
// decide (req.Ask).
func (g *Grants) Cover(ctx context.Context, req ApprovalRequest) bool {
	g.mu.Lock()
	granted := Rules{Tools: slices.Clone(g.tools)}
	exact := req.Kind == tools.KindExec && slices.Contains(g.commands, req.Subject)
	g.mu.Unlock()
	d, _ := granted.Approve(ctx, req)
	return len(req.Blocked) == 0 && !req.Ask && (d.Allow || exact)
}

// Grant allows what req asked for the rest of the session: that exact
// command, or the whole tool.
func (g *Grants) Grant(req ApprovalRequest) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if req.Kind == tools.KindExec {
		if !slices.Contains(g.commands, req.Subject) {
			g.commands = append(g.commands, req.Subject)
		}
		return
	}
	if !slices.Contains(g.tools, req.Tool) {
		g.tools = append(g.tools, req.Tool)
	}
}

// List returns the grants, tools first.
func (g *Grants) List() (toolNames, commands []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.tools), slices.Clone(g.commands)
}

// Revoke takes back the grant numbered n (from 1, in the order List
// gives them); false when there is none.
func (g *Grants) Revoke(n int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case n >= 1 && n <= len(g.tools):
		g.tools = slices.Delete(g.tools, n-1, n)
	case n > len(g.tools) && n <= len(g.tools)+len(g.commands):
		i := n - len(g.tools) - 1
		g.commands = slices.Delete(g.commands, i, i+1)
	default:
		return false
	}
	return true
}

// Clear takes back every grant.
func (g *Grants) Clear() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tools, g.commands = nil, nil
}
