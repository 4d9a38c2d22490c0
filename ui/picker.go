package ui

import (
	"fmt"
	"lathe/prompts/human"
	"slices"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator/provider"
)

// The model picker lists the installed models, marking which support
// tools, and switches to the one chosen. It takes the input's place.

// modelsMsg carries the installed models, or why they could not be listed.
type modelsMsg struct {
	models []provider.ModelSummary
	err    error
}

// modelSwitchedMsg reports the end of a model switch.
type modelSwitchedMsg struct {
	info provider.ModelInfo
	err  error
}

func (m *model) cmdModel(arg string) tea.Cmd {
	if m.refuseBusy() {
		return nil
	}
	if arg != "" {
		return m.switchModel(arg)
	}
	m.panel = newList(listText{title: "Choose a model", waiting: "listing installed models…",
		empty: emptyList(m.opts.Suggested), action: "switch"},
		func(md provider.ModelSummary) string { return modelRow(md, m.conn.info.Name, &m.st) }, &m.st, m.keys)
	ctx, p := m.ctx, m.opts.Engine.Provider
	return func() tea.Msg {
		models, err := p.Models(ctx)
		return modelsMsg{models, err}
	}
}

// modelsListed shows the models in the picker, the cursor on the one in
// use.
func (m *model) modelsListed(msg modelsMsg) {
	l, ok := m.panel.(*list[provider.ModelSummary])
	switch {
	case !ok:
		return
	case msg.err != nil:
		m.panel = nil
		m.notice(noticeError, "Cannot list models", msg.err.Error())
		return
	}
	current := slices.IndexFunc(msg.models, func(md provider.ModelSummary) bool { return md.Name == m.conn.info.Name })
	l.setItems(msg.models, current)
}

// modelChosen switches to the model chosen in the picker, if it can be
// used.
func (m *model) modelChosen(msg chosenMsg[provider.ModelSummary]) tea.Cmd {
	if !m.closePanel(msg.p) {
		return nil
	}
	switch md := msg.item; {
	case md.Broken != "":
		m.notice(noticeWarn, "", md.Name+" is unavailable: "+human.Line(md.Broken, 200)+"; choose another")
		return nil
	case !md.Tools:
		m.notice(noticeWarn, "", md.Name+" does not support tool calling, which lathe needs; choose another")
		return nil
	}
	return m.switchModel(msg.item.Name)
}

// switchModel switches to the model name, unless it is the one in use:
// that would start its context over for nothing.
func (m *model) switchModel(name string) tea.Cmd {
	if name == m.conn.info.Name && m.conn.phase == phaseReady {
		m.notice(noticeInfo, "", "Already using "+name+".")
		return nil
	}
	ctx, session := m.ctx, m.session
	m.work.op = opModel
	m.setStatusNote("switching to " + name + "…")
	return func() tea.Msg {
		info, err := session.SetModel(ctx, name)
		return modelSwitchedMsg{info, err}
	}
}

func (m *model) modelSwitched(msg modelSwitchedMsg) tea.Cmd {
	m.status.note, m.work.op = "", ""
	if msg.err != nil {
		m.notice(noticeError, "Cannot switch model", msg.err.Error())
		return m.next()
	}
	m.conn.info, m.conn.phase = msg.info, phaseReady
	m.machine.usage = usage{}
	m.notice(noticeInfo, "", "Now using "+msg.info.Name+".")
	return tea.Batch(m.next(), m.preload())
}

// modelRow is a model as the picker shows it: a remote one marked
// "cloud", one the server could not describe dimmed, with the reason.
func modelRow(md provider.ModelSummary, current string, st *theme) string {
	name := md.Name
	if name == current {
		name += " (current)"
	}
	if md.Broken != "" {
		return st.dim.Render(fmt.Sprintf("%-28s unavailable: %s", name, human.Line(md.Broken, 200)))
	}
	tools := st.ok.Render("tools")
	if !md.Tools {
		tools = st.failed.Render("no tools")
	}
	size := human.Bytes(md.Size)
	if md.Remote != "" {
		size = "cloud"
	}
	return fmt.Sprintf("%-28s %6s %-7s %8s  %s", name, md.ParameterSize, md.Quantization, size, tools)
}

// emptyList is what the picker says when the server lists no model: how to
// pull one from Ollama, or (suggested "", an OpenAI-compatible server,
// which lathe cannot pull into) to load one on the server.
func emptyList(suggested string) string {
	if suggested == "" {
		return "the server serves no model: load one on it (lathe pulls models only from Ollama)"
	}
	return "no model is installed: pull one with \"ollama pull " + suggested + "\""
}
