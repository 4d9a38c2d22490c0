package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxName is the longest tool name model servers take.
const maxName = 64

// ToolName is the name the model calls a server's tool by: SERVER__TOOL,
// each part with what is not a letter, a digit, _ or - replaced by _, and
// at most 64 characters. A longer name is cut and ends with a short hash
// of the whole, so that it is the same on every run and two long names
// that share their start stay apart.
func ToolName(server, tool string) string {
	full := sanitize(server) + "__" + sanitize(tool)
	if len(full) <= maxName {
		return full
	}
	return full[:maxName-9] + "_" + shortHash(server+"\x00"+tool)
}

// sanitize replaces what a tool name may not hold by _.
func sanitize(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}

// shortHash is 8 hex digits of s's SHA-256.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// uniqueName is name, or when taken (two tools that sanitise alike) the
// name cut to leave room for a hash of the tool's own name.
func uniqueName(name, server, tool string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	return name[:min(len(name), maxName-9)] + "_" + shortHash("dup\x00"+server+"\x00"+tool)
}
