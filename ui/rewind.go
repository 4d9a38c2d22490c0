package ui

import (
	"errors"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/prompts/human"
)

// /rewind lists the requests of the session, newest first, in the input's
// place; the one chosen is undone with every later one, once the undo
// dialog has shown what that does and been told to, as for /undo.

// turnsMsg carries the requests /rewind can go back to.
type turnsMsg struct {
	turns []orchestrator.Turn
	err   error
}

func (m *model) cmdRewind(string) tea.Cmd {
	if m.refuseBusy() {
		return nil
	}
	m.panel = newList(listText{title: "Rewind to before a request: it and every later one are undone",
		waiting: "listing the requests…", empty: "no request of this session to rewind to", action: "rewind"},
		turnRow, &m.st, m.keys)
	ctx, s := m.ctx, m.session
	return func() tea.Msg {
		turns, err := s.Turns(ctx)
		return turnsMsg{turns, err}
	}
}

func (m *model) turnsListed(msg turnsMsg) {
	l, ok := m.panel.(*list[orchestrator.Turn])
	switch {
	case !ok:
		return
	case msg.err == nil:
		slices.Reverse(msg.turns)
		l.setItems(msg.turns, 0)
		return
	}
	m.panel = nil
	if errors.Is(msg.err, orchestrator.ErrNoCheckpoints) {
		m.notice(noticeInfo, "", "Nothing to rewind: this session keeps no checkpoints yet.")
	} else {
		m.notice(noticeError, "Cannot rewind", msg.err.Error())
	}
}

// turnRow is a request as the list shows it: when, how many files it
// changed, its prompt.
func turnRow(t orchestrator.Turn) string {
	files := human.Plural(len(t.Checkpoint.Files), "file")
	prompt := t.Prompt
	if prompt == "" {
		prompt = "(not in the conversation)"
	}
	return fmt.Sprintf("%s  %-9s  %s", t.Checkpoint.Created.Local().Format("15:04"), files, human.Line(prompt, 60))
}

// turnChosen works out what rewinding to the request chosen does (it and
// every later one undone), to show it and ask, as /undo does.
func (m *model) turnChosen(msg chosenMsg[orchestrator.Turn]) tea.Cmd {
	if !m.closePanel(msg.p) {
		return nil
	}
	t, ctx, s := msg.item, m.ctx, m.session
	return func() tea.Msg {
		plan, err := s.PlanRewind(ctx, t.Checkpoint.ID)
		return undoPlannedMsg{plan: plan, prompt: t.Prompt, err: err}
	}
}
