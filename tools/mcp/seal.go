package mcp

import (
	"fmt"
	"strings"
)

// Seal is what trust in a server is given to: a digest of its definition
// and of the files of the project its command line runs (see package
// runfiles), and those files, relative to the project, to name them. A
// server needs the user's trust when the project declared it, or when it
// runs files of the project: a command in the sandbox may have written
// them, and the server runs outside it.
type Seal struct {
	Digest string
	Files  []string
}

// sealOf is the server's seal as it would start now.
func (m *Manager) sealOf(s *server) Seal {
	if m.opts.Seal == nil {
		return Seal{Digest: "definition"} // only the project's need trust, for what they are
	}
	return m.opts.Seal(s.name)
}

// needsTrust reports whether a server with this seal needs the user's
// trust to start.
func (s *server) needsTrust(seal Seal) bool { return s.cfg.Project || len(seal.Files) > 0 }

// admit reports whether the server may start as it would now, and sets
// why not: it needs no trust, or it was trusted with this very seal (in
// this session, or before: Options.Sealed, Options.Trusted).
func (m *Manager) admit(s *server) bool {
	seal := m.sealOf(s)
	if !s.needsTrust(seal) {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs = seal.Files
	switch {
	case s.sealed == "" && (m.opts.Trusted || m.opts.Sealed[s.name] == seal.Digest):
		s.sealed = seal.Digest // trusted before, or for this run
		return true
	case s.sealed == seal.Digest:
		return true
	case s.sealed != "" || m.opts.Sealed[s.name] != "":
		s.changed = true
		s.state, s.why = StateUntrusted, "what it runs changed since it was trusted"+filesNote(seal.Files)
	case !s.cfg.Project:
		s.state, s.why = StateUntrusted, "it runs "+strings.Join(seal.Files, ", ")+" from the project: not trusted yet"
	default:
		s.state, s.why = StateUntrusted, "the project's: not trusted yet"
	}
	return false
}

// trust trusts the server with what it would run now.
func (m *Manager) trust(s *server) {
	seal := m.sealOf(s)
	s.mu.Lock()
	s.sealed, s.changed = seal.Digest, false
	s.mu.Unlock()
}

func filesNote(files []string) string {
	if len(files) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s)", strings.Join(files, ", "))
}

// Seals returns the seals the servers that need trust were trusted with,
// by name, for the caller to keep (the trust file).
func (m *Manager) Seals() map[string]string {
	out := map[string]string{}
	for _, s := range m.servers {
		s.mu.Lock()
		if s.sealed != "" {
			out[s.name] = s.sealed
		}
		s.mu.Unlock()
	}
	return out
}
