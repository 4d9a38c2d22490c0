package ui

import (
	"strings"
	"testing"

	"lathe/orchestrator"
	custom "lathe/prompts/commands"
)

// TestCustomCommands: a custom command is in /help with its description,
// completes, and sends the prompt it stands for.
func TestCustomCommands(t *testing.T) {
	var gotArgs string
	setup := func(m *model) {
		m.opts.CommandPrompt = func(c custom.Command, args string) orchestrator.Prompt {
			gotArgs = args
			return orchestrator.Prompt{Text: "ignored"}
		}
	}
	m, _ := testModel(t)
	setup(m)
	m.slash = append(commands(), customCommands([]custom.Command{
		{Name: "review", Description: "Review a branch", ArgumentHint: "BRANCH", Project: true},
		{Name: "frontend:component", Body: "Make a component.\nMore."},
	})...)
	m.input.table = m.slash
	typeText(m, "/help")
	press(m, "enter")
	s := screen(m)
	if !strings.Contains(s, "/review") || !strings.Contains(s, "BRANCH · Review a branch (project)") ||
		!strings.Contains(s, "/frontend:component") || !strings.Contains(s, "Make a component.") {
		t.Errorf("/help:\n%s", s)
	}
	typeText(m, "/rev")
	if cs := m.input.popup(); len(cs) != 1 || cs[0].name != "review" {
		t.Errorf("completions of /rev: %v", cs)
	}
	press(m, "tab")
	typeText(m, "main")
	press(m, "enter")
	if gotArgs != "main" || m.run == nil || m.run.prompt.Text != "/review main" {
		t.Errorf("args %q, run %+v", gotArgs, m.run)
	}
}

// TestProjectCommandAllowanceIsToldOnce: a project's command that
// declares allowed-tools is told of once (they approve nothing); a
// command of the user's own is not.
func TestProjectCommandAllowanceIsToldOnce(t *testing.T) {
	m, _ := testModel(t)
	m.opts.CommandPrompt = func(c custom.Command, args string) orchestrator.Prompt { return orchestrator.Prompt{} }
	m.slash = append(commands(), customCommands([]custom.Command{
		{Name: "review", AllowedTools: []string{"Write"}, Project: true, Path: "/p/.claude/commands/review.md"},
		{Name: "mine", AllowedTools: []string{"Write"}, Path: "/home/u/.config/lathe/commands/mine.md"},
	})...)
	m.input.table = m.slash
	for _, cmd := range []string{"/review", "/review", "/mine"} {
		typeText(m, cmd)
		press(m, "enter")
	}
	var notes []string
	for _, it := range m.transcript.items {
		if n, ok := it.(*noticeItem); ok && strings.Contains(n.text, "allowed-tools") {
			notes = append(notes, n.text)
		}
	}
	want := "/p/.claude/commands/review.md: allowed-tools approves nothing in a project's command (a project's file must not approve its own commands)"
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notices %q, want one: %q", notes, want)
	}
}
