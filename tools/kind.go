package tools

// Kind is what a tool does. It decides how its calls are handled, so that no
// rule depends on a tool's name: renaming a tool cannot change what it may
// do.
type Kind int

const (
	// KindRead tools only read. Their calls run without approval, and next
	// to each other they run concurrently.
	KindRead Kind = iota
	// KindWrite tools change files. Their calls ask first, showing the
	// change as a diff, and run one at a time.
	KindWrite
	// KindExec tools run commands. Their calls ask first, showing the
	// command, and run one at a time, confined by the OS where it can.
	KindExec
	// KindTransition tools change the session's mode. A call ends the
	// turn: the agent handles it, not the tool.
	KindTransition
	// KindUI tools change only what the user is shown (a plan's
	// checklist). Their calls run alone, without approval; a success needs
	// no card of its own.
	KindUI
	// KindMemory tools keep something for later sessions (a fact about
	// the project). Their calls ask first, showing what is kept, and run
	// one at a time.
	KindMemory
	// KindExternal tools belong to another program (an MCP server) and
	// may change anything it reaches. Their calls ask first, showing the
	// server, the tool and the arguments, and run one at a time.
	KindExternal
)

// NeedsApproval reports whether calls of the kind ask the user first.
func (k Kind) NeedsApproval() bool {
	return k == KindWrite || k == KindExec || k == KindMemory || k == KindExternal
}

// Concurrent reports whether calls of the kind may run alongside others of
// the kind.
func (k Kind) Concurrent() bool { return k == KindRead }

func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	case KindExec:
		return "exec"
	case KindTransition:
		return "transition"
	case KindUI:
		return "ui"
	case KindMemory:
		return "memory"
	case KindExternal:
		return "external"
	}
	return "unknown"
}
