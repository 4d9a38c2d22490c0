package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/tools"
)

func TestToolCardTickReportsChanges(t *testing.T) {
	c := &toolCard{start: orchestrator.ToolStarted{Name: "shell", Subject: "go test ./..."}}
	steps := []struct {
		name  string
		do    func()
		frame int
		want  bool
	}{
		{"same spinner frame", func() {}, 0, false},
		{"next spinner frame", func() {}, 1, true},
		{"again the same", func() {}, 1, false},
		{"waiting for approval", func() { c.setWaiting(true) }, 2, false},
		{"approved", func() { c.setWaiting(false) }, 2, true},
		{"finished", func() { c.finish(orchestrator.ToolFinished{Outcome: orchestrator.OutcomeOK}) }, 3, false},
	}
	for _, s := range steps {
		s.do()
		if got := c.tick(s.frame); got != s.want {
			t.Errorf("%s: tick(%d) = %v, want %v", s.name, s.frame, got, s.want)
		}
	}
}

// TestCardHeaderKeepsItsStatus: a long subject gives way to the status,
// and a transition's card (a plan proposed, shown in full below it) keeps
// its subject short (R14).
func TestCardHeaderKeepsItsStatus(t *testing.T) {
	st := newTheme(true, true)
	summary := "Add a Hello function to greet.go that returns a fixed string, with a table-driven test covering " +
		"the empty name, a long name and names with accents, and document it in the README's usage section."
	command := "go test ./... -run 'TestGreet|TestHello|TestParse' -count=1 -race -coverprofile=cover.out -timeout 10m"
	for _, tc := range []struct {
		name  string
		card  *toolCard
		width int
		tail  string
		most  int // of the subject, in columns
	}{
		{"plan at 160", &toolCard{start: orchestrator.ToolStarted{Name: "propose_plan", Kind: tools.KindTransition, Subject: summary}, waiting: true},
			160, " · waiting for approval", shortSubject},
		{"plan at 80", &toolCard{start: orchestrator.ToolStarted{Name: "propose_plan", Kind: tools.KindTransition, Subject: summary}, waiting: true},
			80, " · waiting for approval", shortSubject},
		{"command at 80", &toolCard{start: orchestrator.ToolStarted{Name: "shell", Kind: tools.KindExec, Subject: command},
			end: &orchestrator.ToolFinished{Outcome: orchestrator.OutcomeFailed, Result: tools.Result{Summary: "exit 1"}, Duration: 1500 * time.Millisecond}},
			80, " · exit 1 · 1.5s", 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := ansi.Strip(tc.card.header(tc.width, &st))
			if !strings.HasSuffix(head, tc.tail) || ansi.StringWidth(head) > tc.width {
				t.Errorf("header %q (%d columns), want it to end with %q within %d", head, ansi.StringWidth(head), tc.tail, tc.width)
			}
			subject := strings.TrimSuffix(head[strings.Index(head, tc.card.start.Name)+len(tc.card.start.Name)+1:], tc.tail)
			if w := ansi.StringWidth(subject); w > tc.most || !strings.HasSuffix(subject, "…") {
				t.Errorf("subject %q: %d columns, want at most %d, cut with …", subject, w, tc.most)
			}
		})
	}
}

// TestCutLinesExpand: what a card or an answer cuts at the terminal's
// edge, Ctrl+O shows whole: a card's subject, and an answer's code line
// (F12, F16).
func TestCutLinesExpand(t *testing.T) {
	m, _ := testModel(t)
	long := `fmt.Println("a very long line of Go code that certainly does not fit", "in eighty columns, nor the end")`
	m.beginRun("print it")
	events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.TextDelta{Turn: 1, Text: "Here:\n\n```go\n" + long + "\n```\n"},
		orchestrator.TurnFinished{Turn: 1}, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopDone}})
	if s := screen(m); !strings.Contains(s, "…") || strings.Contains(s, "nor the end") {
		t.Fatalf("the code line is not cut at 80 columns:\n%s", s)
	}
	press(m, "ctrl+o")
	if s := strings.Join(strings.Fields(strings.ReplaceAll(screen(m), "↪", "")), " "); !strings.Contains(s, "nor the end\")") {
		t.Errorf("ctrl+o does not show the end of the code line:\n%s", screen(m))
	}

	command := "go test ./... -run 'TestTheParserHandlesAVeryLongInputWithoutPanickingAtAll' && rm -rf ./important-data"
	m.beginRun("test")
	events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.ToolStarted{Turn: 1, Name: "shell", Kind: tools.KindExec, Subject: command},
		orchestrator.ToolFinished{Turn: 1, Name: "shell", Subject: command, Outcome: orchestrator.OutcomeFailed,
			Result: tools.Result{Content: "exit 1", IsError: true, Summary: "exit 1"}},
		runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopDone}})
	if strings.Contains(screen(m), "important-data") {
		t.Fatalf("the card's subject is not cut:\n%s", screen(m))
	}
	press(m, "ctrl+o")
	if !strings.Contains(screen(m), "important-data") {
		t.Errorf("ctrl+o does not show the whole command:\n%s", screen(m))
	}
}
