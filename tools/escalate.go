package tools

// Escalation lifts part of the sandbox for one call, as the user approved
// it: never remembered beyond that call.
type Escalation struct {
	// Unconfined runs the command outside the sandbox (its processes are
	// still tracked and killed when it ends).
	Unconfined bool
	// Network lets the command use the network, inside the sandbox
	// otherwise.
	Network bool
}

// Sandboxed is a call that runs inside the sandbox, which an escalation
// can lift for it.
type Sandboxed interface {
	Call
	// Confined reports whether the call would run confined: false when
	// the sandbox is off.
	Confined() bool
	// Escalate makes the call run as e says.
	Escalate(e Escalation)
}

// AsSandboxed finds a Sandboxed call under c, through the wrappers the
// registry puts around calls.
func AsSandboxed(c Call) (Sandboxed, bool) { return findCall[Sandboxed](c) }

// Unruled is a call that no approval rule may cover in its present
// circumstances, though a rule matches its command: Unruled says why,
// or "" when a rule may.
type Unruled interface {
	Call
	Unruled() string
}

// AsUnruled finds an Unruled call under c, through the wrappers the
// registry puts around calls.
func AsUnruled(c Call) (Unruled, bool) { return findCall[Unruled](c) }
