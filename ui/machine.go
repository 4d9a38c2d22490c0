package ui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/prompts/human"
)

// What lathe sees of the machine: the model loaded ahead of the first
// prompt, a model that spills onto the CPU, and how the context window is
// used.

// machine is what lathe sees of the machine the model runs on: the model
// being loaded in the background, a window that fits the GPU to offer
// once the request is done, and the speed of the last reply.
type machine struct {
	loading     string             // the model being loaded in the background
	stopPreload context.CancelFunc // stops its load
	spill       *orchestrator.Spill
	usage       usage
}

type (
	// preloadedMsg ends the background load of the model.
	preloadedMsg struct {
		model  string
		loaded bool
		err    error
	}
	// numCtxSetMsg ends a switch of the context window.
	numCtxSetMsg struct {
		numCtx int
		err    error
	}
)

// preload has the server load the model in the background, once it is
// ready: the first prompt does not wait for the load. The status line
// says "loading", then "ready"; a prompt sent meanwhile just
// waits for the load on the server.
func (m *model) preload() tea.Cmd {
	if m.machine.stopPreload != nil {
		m.machine.stopPreload()
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.machine.stopPreload, m.machine.loading = cancel, m.conn.info.Name
	s, name := m.session, m.conn.info.Name
	return func() tea.Msg {
		defer cancel()
		loaded, err := s.Preload(ctx)
		return preloadedMsg{name, loaded, err}
	}
}

func (m *model) preloaded(msg preloadedMsg) {
	if msg.model != m.machine.loading {
		return // another model's, since switched away from
	}
	m.machine.stopPreload, m.machine.loading = nil, ""
	if msg.loaded && m.run == nil {
		m.setStatusNote(msg.model + " is ready")
	}
}

// spilled offers, once the request is done, the window that would fit
// the model on the GPU.
func (m *model) spilled(e orchestrator.Spill) {
	m.notice(noticeWarn, "", e.Text()+".")
	if e.FitNumCtx > 0 {
		m.machine.spill = &e
	}
}

// offerFit opens the offer of a window that fits the GPU, after a run.
func (m *model) offerFit() {
	if m.machine.spill == nil || m.dialog != nil || m.run != nil {
		return
	}
	m.dialog = newFitDialog(*m.machine.spill, &m.st, m.keys)
	m.machine.spill = nil
}

// fitDialog asks whether to use the window that fits the model on the
// GPU for the rest of the session.
type fitDialog struct {
	dialogBase
	spill orchestrator.Spill
	fit   bool // the user said to use it
}

var _ dialog = (*fitDialog)(nil)

func newFitDialog(spill orchestrator.Spill, st *theme, keys keyMap) *fitDialog {
	return &fitDialog{dialogBase: newDialogBase(st, keys), spill: spill}
}

// Update handles a key: a choice answers, and closes the dialog.
func (d *fitDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	switch {
	case !ok:
	case key.Matches(k, d.keys.Allow):
		d.fit = true
		return d, d.close(d)
	case key.Matches(k, d.keys.Deny), key.Matches(k, d.keys.Interrupt):
		return d, d.close(d)
	}
	return d, nil
}

func (d *fitDialog) hint() string { return "a smaller window?" }
func (d *fitDialog) cancel()      {}

func (d *fitDialog) View() string {
	st, width := d.st, d.width
	title := fmt.Sprintf("? Use num_ctx %s for this session, so that %s fits on the GPU?",
		human.Thousands(d.spill.FitNumCtx), d.spill.Model)
	lines := append([]string{d.rule()}, wrap(title, width, " ", "   ", st.dialogTitle)...)
	lines = append(lines, wrap("The model is loaded again with it, and the conversation must fit it; set options.num_ctx in your config to keep it.",
		width, "   ", "   ", st.meta)...)
	return strings.Join(append(lines, joinWrapped([]string{choice(st, d.keys.Allow, "use it"),
		choice(st, d.keys.Interrupt, "keep "+human.Thousands(d.spill.NumCtx))},
		st.meta.Render("  ·  "), width)...), "\n")
}

// fitAnswered switches to the window that fits, if the user said so.
func (m *model) fitAnswered(d *fitDialog) tea.Cmd {
	if !d.fit {
		return nil
	}
	return m.setNumCtx(d.spill.FitNumCtx)
}

// setNumCtx switches the session's window.
func (m *model) setNumCtx(n int) tea.Cmd {
	s := m.session
	return func() tea.Msg { return numCtxSetMsg{n, s.SetNumCtx(n)} }
}

func (m *model) numCtxSet(msg numCtxSetMsg) {
	if msg.err != nil {
		m.notice(noticeError, "Cannot change the window", msg.err.Error())
		return
	}
	m.conn.info.NumCtx = msg.numCtx
	m.notice(noticeInfo, "", fmt.Sprintf("num_ctx is %s for this session.", human.Thousands(msg.numCtx)))
}

// cmdContext shows how the context window is used.
func (m *model) cmdContext(string) tea.Cmd {
	if m.refuseBusy() {
		return nil
	}
	u := m.session.Context()
	if u.NumCtx == 0 {
		m.setStatusNote("no model is ready yet: /model chooses one")
		return nil
	}
	m.transcript.add(&helpItem{title: "Context window", commands: contextRows(u)})
	m.transcript.reveal(len(m.transcript.items) - 1)
	return nil
}

// contextRows are the parts of the window, in tokens and shares of it.
func contextRows(u orchestrator.ContextUse) [][2]string {
	var rows [][2]string
	for _, p := range u.Parts() {
		mark := ""
		if p.Estimated {
			mark = "~"
		}
		rows = append(rows, [2]string{p.Name, fmt.Sprintf("%s%s  %d%%", mark, human.Thousands(p.Tokens), p.Tokens*100/max(u.NumCtx, 1))})
	}
	return append(rows, [2]string{"window", human.Thousands(u.NumCtx) + " tokens (~ estimated; the rest the server's count)"})
}
