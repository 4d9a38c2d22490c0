package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/tools"
)

// TestCardProblems: an edit's card shows how many problems the edit
// brought, folded, and the problems once expanded.
func TestCardProblems(t *testing.T) {
	st := newTheme(true, true)
	d := &tools.Diagnostics{Lines: []string{"main.go:6:14: undefined: greting"}, Total: 3, Servers: []string{"gopls"}}
	c := &toolCard{start: orchestrator.ToolStarted{Name: "edit_file", Kind: tools.KindWrite, Subject: "main.go",
		Preview: "--- a/main.go\n+++ b/main.go\n@@ -6 +6 @@\n-\tgreeting()\n+\tgreting()\n"}}
	c.finish(orchestrator.ToolFinished{Name: "edit_file", Outcome: orchestrator.OutcomeOK,
		Result: tools.Result{Summary: "1 replacement", Diagnostics: d}})
	folded := ansi.Strip(strings.Join(c.lines(100, &st), "\n"))
	if !strings.Contains(folded, "⚠ 3 new problems from gopls (ctrl+o to show)") || strings.Contains(folded, "greting\n") && strings.Contains(folded, "undefined") {
		t.Errorf("folded:\n%s", folded)
	}
	c.toggle()
	open := ansi.Strip(strings.Join(c.lines(100, &st), "\n"))
	if !strings.Contains(open, "main.go:6:14: undefined: greting") || !strings.Contains(open, "… 2 more") {
		t.Errorf("expanded:\n%s", open)
	}
	clean := &toolCard{start: orchestrator.ToolStarted{Name: "edit_file", Preview: "@@ -1 +1 @@\n-a\n+b\n"}}
	clean.finish(orchestrator.ToolFinished{Name: "edit_file", Outcome: orchestrator.OutcomeOK})
	if got := ansi.Strip(strings.Join(clean.lines(100, &st), "\n")); strings.Contains(got, "problem") {
		t.Errorf("a clean edit's card:\n%s", got)
	}
}
