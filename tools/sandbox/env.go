package sandbox

import (
	"slices"
	"strings"
)

// credentialVars are the variables DefaultPolicy keeps from commands:
// names and patterns of the keys, tokens and passwords that tools read
// from the environment, and the agents' sockets that sign with the
// user's keys. Nothing a build or a test needs.
var credentialVars = []string{
	"*TOKEN", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*_PWD",
	"*_KEY", "*_KEY_ID", "*_APIKEY", "*CREDENTIALS*", "*_AUTH", "AWS_*",
	"SSH_AUTH_SOCK", "GPG_AGENT_INFO",
	"OTEL_EXPORTER_OTLP_*HEADERS", // a telemetry collector's key
}

// CredentialVars returns the patterns DefaultPolicy puts in EnvDeny.
func CredentialVars() []string { return slices.Clone(credentialVars) }

// envMatch reports whether the variable name matches pattern, in which
// "*" stands for any run of characters; case is ignored.
func envMatch(pattern, name string) bool {
	first, rest, star := strings.Cut(pattern, "*")
	if !star {
		return strings.EqualFold(pattern, name)
	}
	if len(name) < len(first) || !strings.EqualFold(name[:len(first)], first) {
		return false
	}
	name = name[len(first):]
	for {
		part, more, star := strings.Cut(rest, "*")
		if !star { // the last part ends the name
			return len(name) >= len(part) && strings.EqualFold(name[len(name)-len(part):], part)
		}
		i := indexFold(name, part)
		if i < 0 {
			return false
		}
		name, rest = name[i+len(part):], more
	}
}

// indexFold is strings.Index, case ignored (ASCII).
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// Withheld reports whether the policy keeps the variable name from the
// command: EnvDeny matches it and EnvPass does not. In mode Off nothing
// is withheld.
func (p Policy) Withheld(name string) bool {
	if p.Mode == Off {
		return false
	}
	match := func(pat string) bool { return envMatch(pat, name) }
	return slices.ContainsFunc(p.EnvDeny, match) && !slices.ContainsFunc(p.EnvPass, match)
}

// commandEnv is environ ("KEY=VALUE" entries) as the command gets it:
// without the variables the policy withholds, and with its temp
// directory as TMPDIR and GOTMPDIR.
func (p Policy) commandEnv(environ []string) []string {
	temp := p.Mode == WorkspaceWrite && p.TempDir != ""
	out := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !p.Withheld(name) && !(temp && (name == "TMPDIR" || name == "GOTMPDIR")) {
			out = append(out, kv)
		}
	}
	if temp {
		out = append(out, "TMPDIR="+p.TempDir, "GOTMPDIR="+p.TempDir)
	}
	return out
}
