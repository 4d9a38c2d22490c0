package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/prompts/human"
)

// What the TUI can have under way besides a request (m.run), as the
// status line and "busy" notes name it. One thing runs at a time: the
// session refuses a second one, and the TUI does not ask.
const (
	opConnect = "connecting to the model"
	opCompact = "compacting"
	opModel   = "switching the model"
	opUndo    = "undoing"
	opMode    = "changing the mode"
	opReset   = "starting a new conversation"
)

// work is what the TUI has under way besides a request, and the prompts
// typed meanwhile.
type work struct {
	op     string                // "" for nothing (see busy)
	queued []orchestrator.Prompt // sent in order once nothing is under way
}

// busy says what is under way: "" when the session is free for a prompt or
// a command.
func (m *model) busy() string {
	switch {
	case m.run != nil:
		return "a request is running"
	case m.conn.phase == phasePulling:
		return "pulling " + m.conn.pull.name
	}
	return m.work.op
}

// refuseBusy tells the user a command cannot run while something is under
// way, and reports whether it said so.
func (m *model) refuseBusy() bool {
	b := m.busy()
	if b == "" {
		return false
	}
	if m.run != nil {
		m.setStatusNote("busy: " + b + " (esc interrupts it)")
	} else {
		m.setStatusNote("busy: " + b)
	}
	return true
}

// queue keeps a prompt typed while something is under way; it is sent
// when the session is free, in order.
func (m *model) queue(p orchestrator.Prompt) {
	m.work.queued = append(m.work.queued, p)
	when := "when the request ends"
	switch {
	case m.run != nil:
	case m.conn.phase == phaseConnecting:
		when = "once the model is ready"
	case m.conn.phase == phasePulling:
		when = "when the pull of " + m.conn.pull.name + " ends"
	case m.work.op != "":
		when = "when " + m.work.op + " ends"
	case m.dialog != nil:
		when = "once the question is answered"
	}
	m.setStatusNote("queued: sent " + when)
}

// next sends the first queued prompt, if the session is free for it.
func (m *model) next() tea.Cmd {
	if len(m.work.queued) == 0 || m.busy() != "" || m.conn.phase != phaseReady || m.dialog != nil {
		return nil
	}
	p := m.work.queued[0]
	m.work.queued = m.work.queued[1:]
	return m.startRun(p)
}

// unqueue puts the queued prompts back into the input, after what it
// holds, for the user to edit or send: an interrupted request does not
// start the next one behind the user's back.
func (m *model) unqueue() {
	if len(m.work.queued) == 0 {
		return
	}
	texts := make([]string, len(m.work.queued))
	for i, q := range m.work.queued {
		texts[i] = q.Text
		m.input.attach(q.Images...)
	}
	text := strings.Join(texts, "\n")
	if v := m.input.value(); v != "" {
		text = v + "\n" + text
	}
	m.input.set(text)
	m.work.queued = nil
}

// queueView shows the queued prompts above the input, one line each.
func (m *model) queueView() []string {
	const shown = 3
	var lines []string
	for i, q := range m.work.queued {
		if i == shown {
			lines = append(lines, m.st.meta.Render(fmt.Sprintf("   … and %d more queued", len(m.work.queued)-shown)))
			break
		}
		line := strings.Join(strings.Fields(q.Text), " ")
		if n := len(q.Images); n > 0 {
			line += " " + human.Plural(n, "image")
		}
		lines = append(lines, " "+m.st.meta.Render("queued ")+m.st.dim.Render(ansi.Truncate(line, m.width-9, "…")))
	}
	return lines
}
