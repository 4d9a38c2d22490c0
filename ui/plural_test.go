package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator/plan"
)

// TestCountsAgreeWithTheirNouns: one of a thing is singular, wherever the
// TUI counts (R13).
func TestCountsAgreeWithTheirNouns(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	thought := func(text string, took time.Duration) string {
		it := &thinkingItem{done: true, took: took}
		it.add(text)
		return it.summary()
	}
	planTitle := func(steps int) string {
		return dialogView(newPlanDialog(planAsk{plan: plan.Plan{Summary: "s", Steps: make([]plan.Step, steps)}}, &st, keys), 80, 10)
	}
	more := func(n int) string {
		return ansi.Strip(strings.Join((&toolCard{}).more(n, &st), ""))
	}
	for _, tc := range []struct{ got, want string }{
		{thought("hmm", 0), "Thought (1 word)"},
		{thought("hmm, let me see", 2*time.Second), "Thought for 2s (4 words)"},
		{planTitle(1), "Carry out this plan of 1 step in build mode?"},
		{planTitle(3), "Carry out this plan of 3 steps in build mode?"},
		{more(1), "… 1 more line (ctrl+o to expand)"},
		{more(2), "… 2 more lines (ctrl+o to expand)"},
		{olderMessages(1), "1 older message is"},
		{olderMessages(4), "4 older messages are"},
	} {
		if !strings.Contains(tc.got, tc.want) {
			t.Errorf("got %q, want %q in it", tc.got, tc.want)
		}
	}
}
