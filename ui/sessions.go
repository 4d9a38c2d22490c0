package ui

import (
	"fmt"
	"lathe/prompts/human"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/session"
)

type (
	// sessionsMsg carries the saved sessions, or why they could not be listed.
	sessionsMsg struct {
		list []session.Summary
		err  error
	}
	// sessionLoadedMsg carries a saved session to resume; with atSet, the
	// transcript is shown from message at on (a /search hit).
	sessionLoadedMsg struct {
		saved session.Saved
		err   error
		at    int
		atSet bool
	}
	// resetMsg ends /new: the session s reset, or failed to.
	resetMsg struct {
		s   *orchestrator.Session
		err error
	}
	// titleMsg carries the title the model gave the session.
	titleMsg struct{ title string }
	// compactDoneMsg ends a /compact; it comes through the bridge after the
	// Compacted event.
	compactDoneMsg struct{ err error }
)

// sessionTitle is the session's title: the model is asked for one once,
// after its first answer.
type sessionTitle struct {
	text  string
	asked bool
}

// cmdSessions lists the saved sessions of the working directory, in the
// input's place, to resume one.
func (m *model) cmdSessions(string) tea.Cmd {
	st := m.opts.Catalog
	switch {
	case m.refuseBusy():
		return nil
	case st == nil:
		m.notice(noticeWarn, "", "sessions are not being saved, so there are none to resume")
		return nil
	}
	m.panel = newList(listText{title: "Resume a session", waiting: "listing sessions…",
		empty: "no saved session in this directory", action: "resume"},
		func(s session.Summary) string { return sessionRow(s, m.session.Snapshot().ID, time.Now()) }, &m.st, m.keys)
	ctx, dir := m.ctx, m.opts.Dir
	return func() tea.Msg {
		list, err := st.List(ctx, dir)
		return sessionsMsg{list, err}
	}
}

func (m *model) sessionsListed(msg sessionsMsg) {
	l, ok := m.panel.(*list[session.Summary])
	switch {
	case !ok:
		return
	case msg.err != nil:
		m.panel = nil
		m.notice(noticeError, "Cannot list sessions", msg.err.Error())
		return
	}
	l.setItems(msg.list, 0)
}

// sessionChosen loads the session chosen, to resume it.
func (m *model) sessionChosen(msg chosenMsg[session.Summary]) tea.Cmd {
	if !m.closePanel(msg.p) {
		return nil
	}
	id, ctx, st := msg.item.ID, m.ctx, m.opts.Catalog
	if id == m.session.Snapshot().ID {
		m.setStatusNote("already in this session")
		return nil
	}
	load := st.Load
	if r, ok := st.(orchestrator.ResumeLoader); ok {
		load = r.LoadResume // without the messages requests no longer send
	}
	return func() tea.Msg {
		saved, err := load(ctx, id)
		return sessionLoadedMsg{saved: saved, err: err}
	}
}

// sessionLoaded switches to a saved session: a new session value resumes
// it once prepared.
func (m *model) sessionLoaded(msg sessionLoadedMsg) tea.Cmd {
	if msg.err != nil {
		m.notice(noticeError, "Cannot resume", msg.err.Error())
		return nil
	}
	if msg.saved.Model != "" {
		m.opts.Engine.Config.Model = msg.saved.Model
	}
	m.opts.Engine.Mode = nil  // the session goes on in its own mode
	m.approver.grants.Clear() // what was allowed for the session left was for that one
	m.forgetMCPGrants()
	old, ctx := m.session, m.ctx
	m.session = m.newSession()
	_ = m.session.ResumeFrom(msg.saved) // a new session is idle
	m.title.asked, m.title.text, m.machine.usage = true, msg.saved.Title, usage{}
	m.transcript.revealAt = -1
	if msg.atSet {
		m.transcript.revealAt = msg.at
	}
	prepare := m.prepare()
	return func() tea.Msg {
		_ = old.Close(ctx) // busy naming itself: its claim goes when lathe ends
		return prepare()
	}
}

// cmdNew starts a new conversation: the session resets off the UI's
// goroutine (it saves where the one left stands), then the screen
// clears.
func (m *model) cmdNew(string) tea.Cmd {
	if m.refuseBusy() {
		return nil
	}
	m.work.op = opReset
	s := m.session
	ctx := m.ctx
	return func() tea.Msg { return resetMsg{s: s, err: s.Reset(ctx)} }
}

// reset ends /new: the screen starts over with the session, unless the
// session failed to reset or was replaced meanwhile.
func (m *model) reset(msg resetMsg) tea.Cmd {
	m.work.op = ""
	switch {
	case msg.s != m.session:
		return m.next()
	case msg.err != nil:
		m.setStatusNote(msg.err.Error())
		return m.next()
	}
	m.approver.grants.Clear() // what was allowed for the session was for that one
	m.forgetMCPGrants()
	m.syncMode()
	m.mode.item = -1
	m.transcript.clear()
	m.older = nil
	m.machine.usage, m.title.asked, m.title.text = usage{}, false, ""
	m.notice(noticeInfo, "", "New conversation.")
	return m.next()
}

func (m *model) cmdCompact(string) tea.Cmd {
	if m.refuseBusy() {
		return nil
	}
	if m.conn.phase != phaseReady {
		m.setStatusNote("no model is ready yet: /model chooses one")
		return nil
	}
	m.work.op = opCompact
	ctx, session, b := m.ctx, m.session, m.bridge
	m.runs.Add(1)
	return func() tea.Msg {
		defer m.runs.Done()
		b.send(compactDoneMsg{session.Compact(ctx, b.emit)})
		return nil
	}
}

// askTitle asks the model, once per session, for a title after its first
// answer; the session starts with its first prompt as the title.
func (m *model) askTitle(stop orchestrator.StopReason) tea.Cmd {
	if m.title.asked || stop != orchestrator.StopDone || m.opts.Engine.Recorder == nil {
		return nil
	}
	m.title.asked = true
	titler := m.session.Titler()
	if titler == nil {
		return nil
	}
	ctx, log := m.ctx, m.opts.Engine.Log
	m.runs.Add(1) // quitting waits for it, as for a run
	return func() tea.Msg {
		defer m.runs.Done()
		title, err := titler(ctx)
		if err != nil {
			log.Warn().Err(err).Msg("session title")
		}
		return titleMsg{title}
	}
}

// sessionRow is a session as the picker shows it.
func sessionRow(s session.Summary, current string, now time.Time) string {
	last := "-"
	if s.LastRun != nil {
		last = string(s.LastRun.Ending())
	}
	title := s.Title
	if s.ID == current {
		title += " (current)"
	}
	return fmt.Sprintf("%s  %5s  %3d msgs  %-11s %s", session.ShortID(s.ID), human.Ago(now.Sub(s.Updated)), s.Messages, last, title)
}

// titled shows the title the model gave the session.
func (m *model) titled(msg titleMsg) {
	if msg.title != "" {
		m.title.text = msg.title
	}
}
