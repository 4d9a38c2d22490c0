package ui

import (
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
)

// frameMsg paces rendering while something streams or spins.
type frameMsg struct{}

// Update hands a message to its handler, then lays the screen out again.
// The pacer hears of every message; the indexer's gate follows whether
// the model is idle.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.frames.pace.reset == nil && m.frames.program != nil {
		if t := rendererTicker(m.frames.program); t != nil {
			m.frames.pace.reset = t.Reset
		}
	}
	if _, ok := msg.(idleCheckMsg); ok {
		return m, m.frames.pace.idle(m.now(), m.animating())
	}
	paced := m.frames.pace.heard(m.now(), fromUser(msg))
	cmd := m.handle(msg)
	m.layout()
	if page := m.pageIn(); page != nil {
		cmd = tea.Batch(cmd, page)
	}
	if paced != nil {
		cmd = tea.Batch(cmd, paced)
	}
	m.index.gate.set(m.idle())
	return m, cmd
}

// fromUser reports whether msg is the user's doing: a key, a paste, a
// click or a resize.
func fromUser(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, tea.MouseMsg, tea.WindowSizeMsg:
		return true
	}
	return false
}

// handle hands msg to its handler: the terminal's messages, the engine's,
// the frames, and what the components tell; the rest is background work
// done (see finished).
func (m *model) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		m.background(msg.IsDark())
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseWheelMsg:
		return m.toTranscript(msg)
	case tea.PasteMsg:
		return m.paste(msg)
	case engineMsg:
		return m.engine(msg)
	case frameMsg:
		return m.onFrame()
	case olderMsg:
		m.showOlder(msg)
	case quitExpiredMsg:
		m.quitTimeout()
	case dialogClosedMsg:
		return m.dialogClosed(msg)
	case panelClosedMsg:
		m.closePanel(msg.p)
	case chosenMsg[provider.ModelSummary]:
		return m.modelChosen(msg)
	case chosenMsg[session.Summary]:
		return m.sessionChosen(msg)
	case chosenMsg[session.Hit]:
		return m.hitChosen(msg)
	case chosenMsg[orchestrator.Turn]:
		return m.turnChosen(msg)
	default:
		return m.finished(msg)
	}
	return nil
}

// finished hands what background work sends back to its handler; any
// other message goes to the input (its cursor and the like).
func (m *model) finished(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case preparedMsg:
		return m.prepared(msg)
	case promptsMsg:
		m.input.earlier(msg.prompts)
	case titleMsg:
		m.titled(msg)
	case preloadedMsg:
		m.preloaded(msg)
	case imagesReadMsg:
		return m.imagesArrived(msg)
	case clipboardReadMsg:
		return m.clipboardArrived(msg)
	case modelsMsg:
		m.modelsListed(msg)
	case modelSwitchedMsg:
		return m.modelSwitched(msg)
	case modeSetMsg:
		return m.modeSet(msg)
	case numCtxSetMsg:
		m.numCtxSet(msg)
	case resetMsg:
		return m.reset(msg)
	case sessionsMsg:
		m.sessionsListed(msg)
	case sessionLoadedMsg:
		return m.sessionLoaded(msg)
	case searchMsg:
		m.searched(msg)
	case undoPlannedMsg:
		m.undoPlanned(msg)
	case undoAppliedMsg:
		m.undoApplied(msg)
		return m.next()
	case turnsMsg:
		m.turnsListed(msg)
	case factsMsg:
		m.factsListed(msg)
	case factCountMsg:
		m.facts = msg.n
	case factChangedMsg:
		m.factChanged(msg)
	case mcpNoticeMsg:
		return m.mcpNotice(msg)
	case mcpTrustedMsg:
		m.mcpTrusted(msg)
	case lspTrustedMsg:
		m.lspTrusted(msg)
	case hooksTrustedMsg:
		m.hooksTrusted(msg)
	case mcpToggledMsg:
		return m.mcpToggled(msg)
	case mcpReloadedMsg:
		return m.mcpReloaded(msg)
	case mcpAskMsg:
		return m.mcpAsked(msg)
	case mcpAskGoneMsg:
		m.mcpAskGone(msg)
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	}
	return nil
}

// keyIs reports whether msg is one of b's keys.
func keyIs(msg tea.KeyPressMsg, b key.Binding) bool { return key.Matches(msg, b) }

// key routes a key press: quitting first, then the screen or panel that
// has the focus, then the transcript keys, then the input.
func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	m.status.note = ""
	if keyIs(msg, m.keys.Quit) {
		return m.ctrlC()
	}
	m.status.quitArmed = false
	if cmd, handled := m.startupKey(msg); handled {
		return cmd
	}
	// A dialog answered, or a list closed, waits for its message to reach
	// the root: the keys typed meanwhile are the input's.
	switch {
	case m.dialog != nil && !m.dialog.over():
		return m.dialogKey(msg)
	case m.panel != nil && !m.panel.over() && m.keys.scrolls(msg):
		return m.toTranscript(msg) // the transcript above a list scrolls
	case m.panel != nil && !m.panel.over():
		return m.panelKey(msg)
	}
	switch {
	case m.keys.scrolls(msg), m.keys.selects(msg):
		return m.toTranscript(msg)
	case keyIs(msg, m.keys.Interrupt):
		m.escape()
		return nil
	}
	if send, handled := m.input.popupKey(msg); handled {
		if send {
			return m.send(m.input.take())
		}
		return nil
	}
	if keyIs(msg, m.keys.CycleMode) {
		return m.cycleMode()
	}
	if keyIs(msg, m.keys.Send) {
		m.input.openPopup()
		return m.send(m.input.take())
	}
	if keyIs(msg, m.keys.PasteImage) {
		return m.pasteImage(msg)
	}
	return m.typed(msg)
}

// typed hands the input a key typed into it: Backspace in an empty input
// takes the last attachment off; an edit opens the popup again, and a
// blank after an @path naming an image attaches it.
func (m *model) typed(msg tea.KeyPressMsg) tea.Cmd {
	m.input.resetCompletion()
	before := m.input.value()
	if before == "" && keyIs(msg, m.keys.Detach) && m.input.detach() {
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.value() != before {
		m.input.openPopup() // an edit opens it again
		if msg.Text == " " {
			cmd = tea.Batch(cmd, m.typedAtPath())
		}
	}
	return cmd
}

// quitWindow is how soon a second Ctrl+C must follow the first to quit.
const quitWindow = 2 * time.Second

// quitExpiredMsg ends the time a second Ctrl+C quits in.
type quitExpiredMsg struct{}

// ctrlC interrupts the running request, or clears a typed prompt; else
// it arms quitting, and a second press soon after quits. On the screens
// before the session (the server unreachable, a model to pull) it quits
// at once, as they say.
func (m *model) ctrlC() tea.Cmd {
	now := m.now()
	switch {
	case m.status.quitArmed && now.Sub(m.status.quitAt) < quitWindow:
		return m.quit()
	case m.conn.phase == phaseOffline || m.conn.phase == phaseOffer || m.conn.phase == phaseConnecting && m.conn.retrying:
		return m.quit()
	case m.run != nil:
		m.interrupt()
	case m.input.value() != "":
		m.input.set("")
		return nil
	}
	m.status.quitArmed, m.status.quitAt = true, now
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitExpiredMsg{} })
}

// quitTimeout disarms quitting once its time is over.
func (m *model) quitTimeout() {
	if m.status.quitArmed && m.now().Sub(m.status.quitAt) >= quitWindow {
		m.status.quitArmed = false
	}
}

// toTranscript hands msg to the transcript: a key that scrolls or
// selects, the wheel.
func (m *model) toTranscript(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.transcript, cmd = m.transcript.Update(msg)
	return cmd
}

// escape closes what is open, or interrupts the running request.
func (m *model) escape() {
	switch {
	case len(m.input.popup()) > 0:
		m.input.closePopup()
	case m.run != nil && !m.run.stopping:
		m.interrupt()
	case m.transcript.selected >= 0:
		m.transcript.selected = -1
	}
}

// interrupt stops the running request: what arrived stays, a question it
// asks is answered as stopped, and the prompts queued behind it go back
// into the input.
func (m *model) interrupt() {
	r := m.run
	if r == nil || r.stopping {
		return
	}
	r.stopping = true
	r.cancel()
	m.unqueue()
	if m.dialog != nil {
		m.dialog.cancel()
		m.dialog = nil
		r.setWaiting(false)
	}
}

// background picks the markdown style for the terminal's background, the
// only style that depends on it. Answers from then on use it; an answer
// already shown keeps its renderer, and so its look.
func (m *model) background(dark bool) {
	m.st.markdown = markdownStyle(m.opts.NoColor, dark)
}

// isCommand reports whether an entered line is a slash command: "/" and
// a name, not a path typed ("/tmp/shot.png", "/home/me/my\ notes").
func isCommand(text string) bool {
	name, ok := strings.CutPrefix(text, "/")
	name, _, _ = strings.Cut(name, " ")
	return ok && !strings.ContainsAny(name, "/\\.~")
}

// send handles an entered line: a slash command, or a prompt for the model.
func (m *model) send(text string) tea.Cmd {
	switch {
	case text == "":
		return nil
	case isCommand(text) && !m.isMCPPrompt(text):
		m.input.resetCompletion()
		return m.runCommand(text)
	}
	if paths, rest := atPaths(text); len(paths) > 0 {
		return m.readImages(paths, imagesReadMsg{send: &rest, text: text})
	}
	if paths, ok := pastedPaths(text); ok {
		// Only paths typed: they are attached, for a request to follow.
		return m.readImages(paths, imagesReadMsg{text: text})
	}
	p := orchestrator.Prompt{Text: text, Images: m.input.takeImages()}
	switch {
	case m.conn.phase == phaseConnecting || m.busy() != "" || m.dialog != nil:
		// A dialog still open was answered: the prompt waits for the
		// answer to be carried out.
		m.queue(p)
		return nil
	case m.conn.phase != phaseReady:
		m.input.set(text) // kept for when a model is ready
		m.input.attach(p.Images...)
		m.setStatusNote("no model is ready yet: /model chooses one")
		return nil
	}
	return m.startRun(p)
}
