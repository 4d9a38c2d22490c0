package ui

import (
	"errors"
	"fmt"
	"lathe/prompts/human"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// phase is where the session stands before it can take prompts.
type phase int

const (
	phaseConnecting phase = iota // asking Ollama about the model
	phaseReady                   // prompts go to the model
	phaseOffline                 // Ollama does not answer: a screen with a retry key
	phaseOffer                   // the model is missing: offer to pull it
	phasePulling                 // pulling it, with a progress bar
	phaseBlocked                 // no usable model: /model and /quit still work
)

// connection is where the session stands with the model's server: the
// phase, the model in use as the server described it, and for the screens
// before the session takes prompts, why the server cannot be used, the
// retries, the model offered for a pull and the pull.
type connection struct {
	phase    phase
	info     provider.ModelInfo
	err      error    // why the server cannot be used
	offer    string   // the model a pull is offered for
	retries  int      // how often the user retried reaching the server
	retrying bool     // a retry is under way
	pull     *pullBar // while the model offered is pulled
	withheld []string // the tools left out of the session (see orchestrator.Prepared)
}

// preparedMsg is the answer to the session's first question to the model's
// server.
type preparedMsg struct {
	orchestrator.Prepared
	err error
}

func (m *model) prepare() tea.Cmd {
	m.conn.phase = phaseConnecting
	ctx, session, unread, framed, loader := m.ctx, m.session, m.unread, m.framed, m.opts.ResumeLoader
	m.unread = nil
	return func() tea.Msg {
		if unread != nil {
			select {
			case <-framed:
			case <-ctx.Done():
				return preparedMsg{err: ctx.Err()}
			}
			select { // the frame is made; it is out within a tick of the renderer
			case <-time.After(firstTick):
			case <-ctx.Done():
				return preparedMsg{err: ctx.Err()}
			}
			saved, err := loader.LoadResume(ctx, unread.ID)
			if err != nil {
				return preparedMsg{err: &unreadError{err}}
			}
			_ = session.ResumeFrom(saved) // not prepared yet, so idle
		}
		p, err := session.Prepare(ctx)
		return preparedMsg{p, err}
	}
}

// firstTick is the renderer's interval at start (tui.go): a frame made is
// out on the terminal within it.
const firstTick = time.Second / startFPS

// unreadError is a session to resume whose history could not be read.
type unreadError struct{ err error }

func (e *unreadError) Error() string { return e.err.Error() }
func (e *unreadError) Unwrap() error { return e.err }

// prepared goes on from the server's answer: once ready, a prompt queued
// meanwhile is sent, the model loaded and the code index brought up to
// date.
func (m *model) prepared(msg preparedMsg) tea.Cmd {
	if cmd := m.enterPhase(msg); cmd != nil {
		return cmd // prepared again
	}
	cmd := m.next()
	if m.conn.phase == phaseReady {
		cmd = tea.Batch(cmd, m.preload(), m.startIndex())
	}
	return cmd
}

// enterPhase moves to the phase the answer calls for; it returns the
// command that prepares a new session when the one asked for is in use.
func (m *model) enterPhase(msg preparedMsg) tea.Cmd {
	m.conn.err, m.conn.retrying = msg.err, false
	switch err := msg.err; {
	case err == nil:
		m.conn.retries = 0
		m.conn.phase, m.conn.info, m.conn.withheld = phaseReady, msg.Model, msg.Withheld
		m.opts.Engine.Log.Debug().Str("session", m.session.Snapshot().ID).Bool("resumed", msg.History != nil).
			Str("model", msg.Model.Name).Msg("session")
		for _, skipped := range msg.Model.Skipped {
			m.notice(noticeWarn, "", "passed over model "+skipped)
		}
		for _, note := range msg.Model.Notes {
			m.notice(noticeWarn, "", note)
		}
		m.syncMode() // a resumed session's, restored by Prepare
		if msg.History != nil {
			m.showHistory(msg.History)
		}
	case errors.As(err, new(*unreadError)):
		m.notice(noticeError, "Cannot resume", err.Error()+"\nA new session starts instead; the saved one is left as it was.")
		m.session = m.newSession()
		m.title.asked, m.title.text, m.resuming = false, "", ""
		return m.prepare()
	case errors.As(err, new(*session.InUseError)):
		// Another lathe has it: go on in a new session instead.
		m.notice(noticeWarn, "", err.Error()+": starting a new session instead")
		m.session = m.newSession()
		m.title.asked, m.title.text, m.resuming = false, "", ""
		return m.prepare()
	case errors.Is(err, provider.ErrUnreachable):
		m.conn.phase = phaseOffline
	case m.opts.Suggested == "" && (errors.Is(err, provider.ErrModelNotFound) || errors.Is(err, provider.ErrNoModel)):
		// Nothing to offer: the server loads its own models.
		m.conn.phase = phaseBlocked
		m.notice(noticeError, "No usable model", err.Error()+"\n/model chooses another one.")
	case errors.Is(err, provider.ErrModelNotFound) && m.opts.Engine.Config.Model != "":
		m.conn.phase, m.conn.offer = phaseOffer, m.opts.Engine.Config.Model
	case errors.Is(err, provider.ErrNoModel):
		m.conn.phase, m.conn.offer = phaseOffer, m.opts.Suggested
	default:
		m.conn.phase = phaseBlocked
		m.notice(noticeError, "No usable model", err.Error()+"\n/model chooses another one.")
	}
	return nil
}

func (m *model) startPull() tea.Cmd {
	m.conn.phase = phasePulling
	m.conn.pull = newPullBar(m.conn.offer, m.now)
	ctx, puller, name, b := m.ctx, m.opts.Puller, m.conn.offer, m.bridge
	return func() tea.Msg {
		err := puller.Pull(ctx, name, func(p provider.PullProgress) { b.send(pullProgressMsg(p)) })
		b.send(pullDoneMsg{err})
		return nil
	}
}

// pulled continues after a pull: with the model, or with the error.
func (m *model) pulled(msg pullDoneMsg) tea.Cmd {
	name := m.conn.pull.name
	m.conn.pull = nil
	if msg.err != nil {
		m.conn.phase, m.conn.err = phaseBlocked, msg.err
		m.notice(noticeError, "Pull failed", msg.err.Error())
		return nil
	}
	m.opts.Engine.Config.Model = name
	m.session = m.newSession()
	m.notice(noticeInfo, "", "Pulled "+name+".")
	return m.prepare()
}

// startupKey handles keys on the screens before the session is ready.
// While the server is first asked about the model, which a long session
// resumed makes take a while, there is no such screen: what is typed goes
// where it would go once ready (a prompt sent then is queued).
func (m *model) startupKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch m.conn.phase {
	case phaseOffline:
		switch {
		case keyIs(msg, m.keys.Retry):
			m.conn.retries++
			m.conn.retrying = true
			return m.prepare(), true
		case msg.String() == "q", keyIs(msg, m.keys.Interrupt):
			return m.quit(), true
		}
	case phaseOffer:
		switch {
		case keyIs(msg, m.keys.Yes):
			return m.startPull(), true
		case keyIs(msg, m.keys.No):
			m.conn.phase = phaseBlocked
			m.notice(noticeWarn, "", fmt.Sprintf("%s is not installed: pull it with \"ollama pull %s\" or choose another with /model", m.conn.offer, m.conn.offer))
			return nil, true
		}
	case phaseConnecting:
		return nil, m.conn.retrying && !keyIs(msg, m.keys.Quit)
	case phasePulling:
		return nil, !keyIs(msg, m.keys.Quit)
	default:
		return nil, false
	}
	return nil, !keyIs(msg, m.keys.Quit)
}

// screen renders the full-window message of the phases that have one.
func (m *model) screen() (string, bool) {
	var title, body, keys string
	switch {
	case m.conn.phase == phaseOffline || m.conn.phase == phaseConnecting && m.conn.retrying:
		// The error says what to do: "is ollama serve running?..."
		title, body, keys = "Cannot reach the server", m.conn.err.Error(), "r retry · q quit"
		more := "lathe doctor checks the setup; lathe --demo tries lathe without a server."
		if m.opts.Suggested != "" {
			title = "Cannot reach Ollama"
			more = "No Ollama yet? https://ollama.com installs it. " + more
		}
		if m.conn.retrying {
			keys = "retrying…"
		} else if m.conn.retries > 0 {
			body += fmt.Sprintf("\n\nStill no answer after %s.", human.Plural(m.conn.retries, "retry"))
		}
		body += "\n\n" + more
	case m.conn.phase == phaseOffer:
		title = "Model not installed"
		body = fmt.Sprintf("%s is not installed in Ollama at %s.\n\nPull it now?", m.conn.offer, m.opts.Server)
		keys = "y pull it · n not now · ctrl+c quit"
	case m.conn.phase == phasePulling:
		title = "Pulling " + m.conn.pull.name
		m.conn.pull.SetSize(m.width, m.height)
		body = m.conn.pull.View()
		keys = "ctrl+c quit"
		if m.status.quitArmed {
			keys = "ctrl+c again to quit"
		}
	default:
		return "", false
	}
	w := min(m.width-4, 72)
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(1, 2).Width(w).Render(
		m.st.dialogTitle.Render(title) + "\n\n" + body + "\n\n" + m.st.meta.Render(keys))
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, box), true
}
