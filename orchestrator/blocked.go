package orchestrator

import (
	"slices"
	"sync"
)

// blockedCommands remembers, for each command the sandbox blocked
// something of the last time it ran in the session, what it blocked. A
// retry of that exact command is asked about (ApprovalRequest.Blocked), so
// that the user can lift the sandbox for it, where a rule or a grant would
// have run it confined again.
type blockedCommands struct {
	mu   sync.Mutex
	last map[string][]string
}

// of returns what the sandbox blocked the last time command ran; nil
// when nothing, or when it has not run.
func (b *blockedCommands) of(command string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.last[command])
}

// record keeps what the sandbox blocked of command as it just ran: the
// next call of it is asked about when that is anything.
func (b *blockedCommands) record(command string, blocked []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(blocked) == 0 {
		delete(b.last, command)
		return
	}
	if b.last == nil {
		b.last = map[string][]string{}
	}
	b.last[command] = slices.Clone(blocked)
}

// forget drops everything: a new conversation starts with nothing blocked.
func (b *blockedCommands) forget() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last = nil
}
