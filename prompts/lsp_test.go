package prompts

import "testing"

// TestDiagnosticsGolden renders what a result says of the problems a
// change brought: one server and a cut list, two servers and all.
func TestDiagnosticsGolden(t *testing.T) {
	got := "## cut\n" + Diagnostics([]string{"gopls"}, []string{"main.go:14:2: undefined: fooo", "main.go:20:5: missing return"}, 3) +
		"\n\n## whole\n" + Diagnostics([]string{"gopls", "pyright"}, []string{"a.go:1:1: x", "b.py:2:3: y"}, 0) + "\n"
	golden(t, "lsp.golden", got)
}
