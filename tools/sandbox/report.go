package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// Report is what the helper saw of one command.
type Report struct {
	// ExitCode is bash's exit status; -1 when a signal ended it (or when
	// it could not be killed: then it is among the Survivors).
	ExitCode int `json:"exit_code"`
	// Signal names the signal that ended bash, if one did.
	Signal string `json:"signal,omitempty"`
	// Stopped: the command was ended early because Cmd's context was
	// done (timeout or cancel) or lathe went away.
	Stopped bool `json:"stopped,omitempty"`
	// Killed are the processes the helper killed and saw go: those left
	// behind when bash exited, or all of them when Stopped.
	Killed []Process `json:"killed,omitempty"`
	// Survivors were signalled but still there when the helper gave up
	// (a process stuck in the kernel dies when it returns).
	Survivors []Process `json:"survivors,omitempty"`
	// Blocked are operations the sandbox refused: seen by the helper, or
	// (Inferred) read from the command's error output.
	Blocked []Blocked `json:"blocked,omitempty"`
}

// Process is a process of the command.
type Process struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
}

// Op is a kind of blocked operation.
type Op string

const (
	OpWrite   Op = "write"   // a write, create, remove or rename outside the writable directories
	OpRead    Op = "read"    // a read of a denied path
	OpNetwork Op = "network" // a socket the policy does not allow
	OpSignal  Op = "signal"  // a signal to a process outside the sandbox
	OpChange  Op = "change"  // a change to a protected path, put back after the command
)

// Blocked is one operation the sandbox refused.
type Blocked struct {
	Op Op `json:"op"`
	// Target is the path, the socket ("socket(AF_INET, SOCK_STREAM)")
	// or the process ("pid 1").
	Target string `json:"target"`
	// By names the program, when known.
	By string `json:"by,omitempty"`
	// Note completes a change: "put back", "removed", or why it could
	// not be.
	Note string `json:"note,omitempty"`
	// Inferred: read from the error output of the command, which the
	// command controls, rather than seen by the sandbox.
	Inferred bool `json:"inferred,omitempty"`
}

// String says what was blocked, for a line like "blocked by the sandbox: "
// + b.String().
func (b Blocked) String() string {
	var s string
	switch b.Op {
	case OpWrite:
		s = "write to " + b.Target
	case OpRead:
		s = "read of " + b.Target
	case OpNetwork:
		s = "network: " + b.Target
	case OpSignal:
		s = "signal to " + b.Target
	case OpChange:
		s = "change to " + b.Target
	default:
		s = string(b.Op) + " " + b.Target
	}
	if b.By != "" {
		s += " by " + b.By
	}
	if b.Note != "" {
		s += " (" + b.Note + ")"
	}
	if b.Inferred {
		s += " (from the error output)"
	}
	return s
}

// KilledSummary says what was killed, truthfully: "" when nothing was,
// else e.g. "killed 2 processes left running: sleep (pid 12), python3
// (pid 15)".
func (r Report) KilledSummary() string {
	var b strings.Builder
	if len(r.Killed) > 0 {
		what := "left running"
		if r.Stopped {
			what = "of the command"
		}
		fmt.Fprintf(&b, "killed %s %s: %s", count(len(r.Killed)), what, list(r.Killed))
	}
	if len(r.Survivors) > 0 {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "could not kill %s: %s", count(len(r.Survivors)), list(r.Survivors))
	}
	return b.String()
}

func count(n int) string {
	if n == 1 {
		return "1 process"
	}
	return strconv.Itoa(n) + " processes"
}

func list(ps []Process) string {
	const most = 10
	var parts []string
	for i, p := range ps {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-most))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (pid %d)", p.Name, p.PID))
	}
	return strings.Join(parts, ", ")
}
