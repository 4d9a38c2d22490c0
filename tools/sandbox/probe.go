package sandbox

import (
	"fmt"
	"strings"
)

// ProbeOptions change what Probe reports.
type ProbeOptions struct {
	// Unsupported reports a system that can confine nothing, whatever
	// the kernel has: for testing the fallback.
	Unsupported bool
}

// Support is what the running system can enforce.
type Support struct {
	LandlockABI   int    // Landlock ABI version; 0 without Landlock
	Seccomp       bool   // seccomp filters can be installed
	SeccompNotify bool   // refused sockets can be seen and reported
	Reason        string // why nothing can be confined, when that is so
}

// Probe asks the kernel what it supports. It changes nothing in the
// calling process and costs a few system calls.
func Probe(o ProbeOptions) Support {
	if o.Unsupported {
		return Support{Reason: "sandbox support turned off for testing"}
	}
	return probe()
}

// Confines reports whether commands can be confined at all: that takes
// Landlock (any ABI) and seccomp.
func (s Support) Confines() bool { return s.LandlockABI >= 1 && s.Seccomp && s.Reason == "" }

// Check returns nil when p can run as it asks (always, for Mode Off), and
// an error wrapping ErrUnsupported otherwise.
func (s Support) Check(p Policy) error {
	if p.Mode == Off || s.Confines() {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrUnsupported, s.Reason)
}

// Fallback is what to do when the system cannot confine commands.
type Fallback string

const (
	// Refuse: run nothing.
	Refuse Fallback = "refuse"
	// Warn: say so, and run commands unconfined (processes are still
	// tracked and killed).
	Warn Fallback = "warn"
)

// ParseFallback parses a fallback name as written in the config.
func ParseFallback(s string) (Fallback, error) {
	switch f := Fallback(s); f {
	case Refuse, Warn:
		return f, nil
	}
	return "", fmt.Errorf("unknown sandbox fallback %q (want %s or %s)", s, Refuse, Warn)
}

// Resolve returns the policy commands should run under: p when s can
// enforce it; with Warn, p turned Off and a warning to show the user;
// with Refuse, an error wrapping ErrUnsupported.
func (s Support) Resolve(p Policy, f Fallback) (Policy, string, error) {
	err := s.Check(p)
	switch {
	case err == nil:
		return p, "", nil
	case f == Warn:
		p.Mode = Off
		return p, fmt.Sprintf("the sandbox cannot confine commands here (%s): they run unconfined", s.Reason), nil
	}
	return Policy{}, "", fmt.Errorf("%w (sandbox fallback is %q)", err, f)
}

// Describe says, one line each, what running under p enforces on this
// system and what it cannot: for "lathe doctor" and the start-up notice.
func (s Support) Describe(p Policy) []string {
	if p.Mode == Off {
		return []string{"mode off: nothing confined; processes a command leaves behind are still killed when it ends"}
	}
	if !s.Confines() {
		return []string{fmt.Sprintf("mode %s cannot be enforced: %s", p.Mode, s.Reason)}
	}
	var out []string
	mech := fmt.Sprintf("Landlock ABI %d, seccomp", s.LandlockABI)
	if s.SeccompNotify {
		mech += " with user notification"
	}
	out = append(out, fmt.Sprintf("mode %s (%s)", p.Mode, mech))
	if p.Mode == ReadOnly {
		out = append(out, "writes: none (but to /dev/null, /dev/zero, /dev/full and the random devices)")
	} else {
		out = append(out, "writes: only beneath "+strings.Join(p.writableRoots(), ", "))
		if p.TempDir != "" {
			out = append(out, "temp: TMPDIR and GOTMPDIR are "+p.TempDir+", the session's own, removed when it ends")
		}
		var kept []string
		for _, w := range p.writableRoots() {
			kept = append(kept, p.keptReadOnly(w)...)
		}
		if kept = tidy(kept); len(kept) > 0 {
			out = append(out, "read-only although a writable directory holds them: "+strings.Join(kept, ", ")+
				" (but the writable directories in them)")
		}
		if way := p.ListOnly(); len(way) > 0 {
			out = append(out, "nothing new can be made directly in "+strings.Join(way, ", ")+
				": they lead to denied or read-only paths (what is in them stays writable)")
		}
	}
	if len(p.ReadDeny) > 0 {
		out = append(out, "reads: everywhere but "+strings.Join(p.ReadDeny, ", ")+
			" (the directories above them can still be listed, and so can the names inside them)")
	}
	if len(p.EnvDeny) > 0 {
		line := "environment: without the variables " + strings.Join(p.EnvDeny, ", ")
		if len(p.EnvPass) > 0 {
			line += " (but " + strings.Join(p.EnvPass, ", ") + ")"
		}
		out = append(out, line)
	}
	out = append(out, s.describeNetwork(p)...)
	if s.LandlockABI >= 6 {
		out = append(out, "processes outside the sandbox: cannot be signalled or traced")
	} else {
		out = append(out, "processes outside the sandbox: cannot be traced; signals are only kept from the helper (Landlock ABI 6 would refuse them all)")
	}
	if p.Mode == WorkspaceWrite && len(p.Writable) > 0 {
		out = append(out, "writable caches and temp are shared with what runs outside the sandbox: a command can leave things there (a poisoned build cache entry) that run later unconfined")
	}
	if prot := p.Reachable(); p.Mode == WorkspaceWrite && len(prot) > 0 {
		out = append(out, "protected (changes put back after each command, a .git made outside the workspace removed): "+
			strings.Join(prot, ", "))
	}
	out = append(out,
		"processes a command leaves behind (setsid, nohup, double fork): killed when it ends",
		"set-user-ID and set-group-ID bits: refused, wherever a command would set them",
		"not enforceable: changing the mode or times of files outside the writable directories (Landlock has no right for it); ownership and extended attributes are refused only when lathe runs with privileges")
	if s.LandlockABI < 3 {
		out = append(out, "truncate(2) by path is refused outright (Landlock ABI < 3 cannot limit it to writable directories)")
	}
	return out
}

func (s Support) describeNetwork(p Policy) []string {
	if p.Network {
		return []string{"network: allowed"}
	}
	out := []string{"network: refused (every IP socket, loopback included; raw, packet and vsock sockets too)"}
	if s.LandlockABI >= 9 {
		out = append(out, "Unix sockets: only those beneath writable directories (docker.sock and the like refused)")
	} else {
		out = append(out, fmt.Sprintf("Unix sockets: all refused, the command's own included (Landlock ABI %d cannot limit them to the workspace; ABI 9 can)", s.LandlockABI))
	}
	if !s.SeccompNotify {
		out = append(out, "refused sockets cannot be reported (no seccomp user notification)")
	}
	return out
}
