package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"lathe/agent"
	"lathe/tools"
)

// TestApprovalDialogShowsWhatFits checks that a long change or command
// shows as many of its lines as fit, then a count of the others.
func TestApprovalDialogShowsWhatFits(t *testing.T) {
	var diff, command strings.Builder
	diff.WriteString("--- parse.go\n+++ parse.go\n@@ -1,150 +1,150 @@\n")
	for i := range 150 {
		fmt.Fprintf(&diff, "-\told%d()\n+\tnew%d()\n", i, i)
		fmt.Fprintf(&command, "echo %d\n", i)
	}
	st, keys := newTheme(true, true), newKeyMap()
	for _, tc := range []struct {
		name  string
		req   agent.ApprovalRequest
		lines int // of the body
		mark  string
	}{
		{"diff", agent.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite, Subject: "parse.go", Preview: diff.String()}, 301, "    "},
		{"command", agent.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: strings.TrimSuffix(command.String(), "\n")}, 150, "  $ "},
	} {
		d := newApprovalDialog(approvalAsk{req: tc.req}, &dialogApprover{}, "/home/dev/proj")
		for _, height := range []int{6, 12, 40} {
			view := strings.Split(ansi.Strip(d.view(80, height, &st, keys)), "\n")
			if len(view) > height {
				t.Errorf("%s in %d lines: %d lines", tc.name, height, len(view))
			}
			shown, hidden := 0, 0
			for _, l := range view {
				switch {
				case strings.Contains(l, "more lines"):
					fmt.Sscanf(strings.TrimSpace(l), "… %d more lines", &hidden)
				case strings.HasPrefix(l, tc.mark):
					shown++
				}
			}
			if shown == 0 || shown+hidden != tc.lines {
				t.Errorf("%s in %d lines: %d lines shown and %d counted, want %d in all:\n%s",
					tc.name, height, shown, hidden, tc.lines, strings.Join(view, "\n"))
			}
		}
	}
}
