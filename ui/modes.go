package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
)

// modeHelp says what each mode does, for /mode and the notices of a
// switch.
var modeHelp = map[string]string{
	"build": "every tool; changes files and runs commands, asking first as configured",
	"plan":  "read-only tools; the model investigates and proposes a plan for you to approve",
	"ask":   "read-only tools; the model answers questions about the code",
}

// modeState is the session's mode as the TUI shows it. The engine's
// goroutine changes the session's mode during a run, so the TUI keeps its
// own copy, moved on by events.
type modeState struct {
	name  string
	plan  *plan.Plan // build mode's plan, a copy
	item  int        // transcript index of the plan being carried out; -1 for none
	shown string     // the mode the transcript last said the session was in
}

// syncMode reads the session's mode.
func (m *model) syncMode() {
	snap := m.session.Snapshot()
	m.mode.name, m.mode.plan = snap.Mode, snap.Plan.Clone()
}

// currentMode is the session's mode as the TUI knows it.
func (m *model) currentMode() mode.Mode {
	md, err := mode.Parse(m.mode.name)
	if err != nil {
		return mode.Build{}
	}
	if m.mode.plan != nil {
		return mode.Build{Plan: m.mode.plan}
	}
	return md
}

// setMode switches the session to mode, the user's choice; with say, the
// transcript tells so at once, else with the next prompt.
func (m *model) setMode(md mode.Mode, reason string, say bool) tea.Cmd {
	if m.refuseBusy() {
		return nil
	}
	m.work.op = opMode
	ctx, session, hadPlan := m.ctx, m.session, m.mode.plan != nil
	return func() tea.Msg {
		return modeSetMsg{err: session.SetMode(ctx, md, reason), say: say, hadPlan: hadPlan}
	}
}

// modeSetMsg ends a mode change: the session saved it (or failed to).
type modeSetMsg struct {
	err     error
	say     bool // tell it in the transcript now, not with the next prompt
	hadPlan bool
}

func (m *model) modeSet(msg modeSetMsg) tea.Cmd {
	m.work.op, m.status.note = "", ""
	if msg.err != nil {
		m.notice(noticeError, "Cannot change the mode", msg.err.Error())
		return m.next()
	}
	m.syncMode()
	m.mode.item = -1
	note := m.mode.name + " mode: " + modeHelp[m.mode.name]
	if msg.hadPlan {
		note += " (the plan is dropped)"
	}
	if msg.say {
		m.mode.shown = m.mode.name
		m.notice(noticeInfo, "", "▸ "+note+".")
	} else {
		m.setStatusNote(m.mode.name + " mode")
	}
	return m.next()
}

// cycleMode is Shift+Tab: the next mode, told with the next prompt.
func (m *model) cycleMode() tea.Cmd {
	return m.setMode(mode.Next(m.currentMode()), "shift+tab", false)
}

func (m *model) cmdMode(arg string) tea.Cmd {
	if arg == "" {
		item := &tableItem{title: "Modes", foot: "/mode NAME switches; " + m.keys.CycleMode.Help().Key + " cycles."}
		for _, name := range mode.Names() {
			mark := "  "
			if name == m.mode.name {
				mark = "› "
			}
			item.rows = append(item.rows, [2]string{mark + name, modeHelp[name]})
		}
		m.transcript.add(item)
		return nil
	}
	md, err := mode.Parse(arg)
	if err != nil {
		m.notice(noticeWarn, "", err.Error())
		return nil
	}
	if md.Name() == m.mode.name {
		m.notice(noticeInfo, "", "Already in "+md.Name()+" mode.")
		return nil
	}
	return m.setMode(md, "/mode "+md.Name(), true)
}

// sayMode tells, before a prompt, the mode the user switched to since
// the transcript last said.
func (m *model) sayMode() {
	if m.mode.name != m.mode.shown {
		m.notice(noticeInfo, "", "▸ "+m.mode.name+" mode: "+modeHelp[m.mode.name]+".")
		m.mode.shown = m.mode.name
	}
}

// modeChanged follows a transition the model made.
func (m *model) modeChanged(e orchestrator.ModeChanged) {
	m.mode.name, m.mode.plan, m.mode.shown = e.To, e.Plan, e.To
	why := e.Reason
	if e.Plan != nil {
		why = "the plan was approved; the model carries it out and checks off its steps"
		if r := m.run; r != nil && r.plan >= 0 {
			m.mode.item = r.planApproved(e.Plan)
		}
	}
	m.notice(noticeInfo, "", "▸ "+e.To+" mode: "+why+".")
}

// planUpdated moves the checklist on.
func (m *model) planUpdated(e orchestrator.PlanUpdated) {
	m.mode.plan = e.Plan
	if i := m.mode.item; i >= 0 && i < len(m.transcript.items) {
		if p, ok := m.transcript.items[i].(*planItem); ok {
			p.set(e.Plan, planApproved)
			if r := m.run; r != nil {
				r.changed(i)
			} else {
				m.transcript.changed(i)
			}
		}
	}
}

// modeStatus is the status line's mode, styled: "plan", "build · plan
// 2/5". Plan and ask mode stand out; build mode is the usual one.
func (m *model) modeStatus(s statusState) string {
	style := m.st.status
	switch s.mode {
	case "plan":
		style = m.st.modePlan
	case "ask":
		style = m.st.modeAsk
	}
	out := style.Render(s.mode)
	if s.planLen > 0 {
		out += m.st.status.Render(fmt.Sprintf(" · plan %d/%d", s.planDone, s.planLen))
	}
	return out
}

// planState is where a plan in the transcript stands.
type planState int

const (
	planProposed planState = iota
	planApproved
	planRejected
	planKept
)

// planItem is a plan in the transcript: proposed, then approved (its
// checklist kept current), rejected or kept for later.
type planItem struct {
	plan     *plan.Plan
	state    planState
	feedback string
	r        render
}

func (p *planItem) set(plan *plan.Plan, state planState) {
	p.plan, p.state = plan, state
	p.r.invalidate()
}

func (p *planItem) invalidate() { p.r.invalidate() }

func (p *planItem) lines(width int, st *theme) []string {
	if l, ok := p.r.get(width); ok {
		return l
	}
	var label string
	switch p.state {
	case planProposed:
		label = "Plan proposed"
	case planApproved:
		label = "Plan"
	case planRejected:
		label = "Plan rejected"
	case planKept:
		label = "Plan kept: reply to revise it, /plan go to approve it, or /mode build to work without it"
	}
	out := []string{indent + st.statusKey.Render("▣ "+label)}
	out = append(out, wrap(p.plan.Summary, width, indent+"  ", indent+"  ", st.user)...)
	for i, step := range p.plan.Steps {
		style := st.notice
		switch step.Status {
		case plan.Done:
			style = st.ok
		case plan.InProgress:
			style = st.accent
		case plan.Skipped:
			style = st.dim
		}
		first := fmt.Sprintf("%s%s %d. ", indent+"  ", style.Render(step.Status.Mark()), i+1)
		out = append(out, wrap(step.Text, width, first, strings.Repeat(" ", lipgloss.Width(first)), st.plain)...)
	}
	if p.state == planRejected && p.feedback != "" {
		out = append(out, wrap("feedback: "+p.feedback, width, indent+"  ", indent+"  ", st.warn)...)
	}
	return p.r.set(width, append(out, ""))
}
