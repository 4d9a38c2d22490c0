package mcp

import "testing"

// What a server wrote on stderr gives the reason it failed only when it
// reads as one: a start-up banner is not, and node's closing version
// line is not the error it follows.
func TestStderrWhy(t *testing.T) {
	for _, tc := range []struct {
		name        string
		lines       []string
		any, notAny string
	}{
		{"banner", []string{"Secure MCP Filesystem Server running on stdio"}, "Secure MCP Filesystem Server running on stdio", ""},
		{"node crash", []string{"file.js:10", "    throw new Error(\"x\")", "Error: ENOENT: no such file, open 'db.json'", "    at Object.openSync (node:fs:573:18)", "Node.js v20.20.2"},
			"Error: ENOENT: no such file, open 'db.json'", "Error: ENOENT: no such file, open 'db.json'"},
		{"go", []string{"listening", "fatal: cannot open database"}, "fatal: cannot open database", "fatal: cannot open database"},
		{"none", nil, "", ""},
	} {
		var tail stderrTail
		for _, l := range tc.lines {
			tail.add(l)
		}
		if got := tail.why(true); got != tc.any {
			t.Errorf("%s: why(any) = %q, want %q", tc.name, got, tc.any)
		}
		if got := tail.why(false); got != tc.notAny {
			t.Errorf("%s: why() = %q, want %q", tc.name, got, tc.notAny)
		}
	}
}
