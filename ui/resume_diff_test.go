package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/tools"
)

// TestResumedWriteCardKeepsItsDiff: the card of an edit in a resumed
// session shows the diff the card showed when the edit ran, line for
// line, from what the session kept of the result.
func TestResumedWriteCardKeepsItsDiff(t *testing.T) {
	args := `{"path": "main.go", "old_string": "func main() {}", "new_string": "func main() {\n\tprintln(\"hi\")\n}"}`
	live, _ := testModel(t)
	live.beginRun("fix main.go")
	events(live, orchestrator.TurnStarted{Turn: 1},
		orchestrator.ToolStarted{Turn: 1, Index: 0, ID: "call_1", Name: "edit_file", Kind: tools.KindWrite, Args: args,
			Subject: "main.go", Preview: writePreview},
		orchestrator.ToolFinished{Turn: 1, Index: 0, Name: "edit_file", Kind: tools.KindWrite, Subject: "main.go",
			Outcome: orchestrator.OutcomeOK, Result: tools.Result{Content: "edited main.go", Summary: "1 edit"}, Duration: 3 * time.Millisecond})
	want := cardLines(t, live)

	saved := &session.Saved{
		Record: session.Record{ID: "0123456789abcdef", Title: "greet", Model: "qwen3:8b"},
		Messages: []session.Message{
			{Seq: 0, Message: provider.Message{Role: "user", Content: "fix main.go"}},
			{Seq: 1, Message: provider.Message{Role: "assistant", ToolCalls: []provider.ToolCall{
				{ID: "call_1", Name: "edit_file", Arguments: []byte(args)}}}},
			{Seq: 2, Message: provider.Message{Role: "tool", Content: "edited main.go", ToolName: "edit_file", ToolCallID: "call_1"},
				Tool: &session.ToolMeta{Subject: "main.go", Outcome: "ok", Summary: "1 edit", Duration: 3 * time.Millisecond,
					Diff: writePreview}},
			{Seq: 3, Message: provider.Message{Role: "assistant", Content: "Done."}},
		},
	}
	m, _ := testModel(t)
	m.session = m.newSession()
	if err := m.session.ResumeFrom(*saved); err != nil {
		t.Fatal(err)
	}
	prepare(m)
	got := cardLines(t, m)
	if !slices.Equal(got, want) {
		t.Errorf("the resumed card:\n%s\nthe card when the edit ran:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, `println("hi")`) }) {
		t.Errorf("the resumed card shows no diff:\n%s", strings.Join(got, "\n"))
	}
	golden(t, m, "card_resumed")
}

// cardLines are the lines of the last tool card of m's transcript, without
// colours.
func cardLines(t *testing.T, m *model) []string {
	t.Helper()
	for _, it := range slices.Backward(m.transcript.items) {
		if c, ok := it.(*toolCard); ok {
			var out []string
			for _, l := range c.lines(m.width, &m.st) {
				out = append(out, ansi.Strip(l))
			}
			return out
		}
	}
	t.Fatal("no tool card")
	return nil
}
