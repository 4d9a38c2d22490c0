package ui

import (
	"fmt"
	"lathe/prompts/human"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator/provider"
)

// modelPicker lists the installed models, marking which support tools, and
// switches to the one chosen. It takes the input's place.
type modelPicker struct {
	listPanel
	models []provider.ModelSummary
}

func newModelPicker(suggested string) *modelPicker {
	return &modelPicker{listPanel: listPanel{title: "Choose a model", waiting: "listing installed models…",
		empty:  emptyList(suggested),
		action: "switch", loading: true}}
}

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

func (m *model) listModels() tea.Cmd {
	ctx, p := m.ctx, m.opts.Engine.Provider
	return func() tea.Msg {
		models, err := p.Models(ctx)
		return modelsMsg{models, err}
	}
}

// switchModel switches to the model name, unless it is the one in use:
// that would start its context over for nothing.
func (m *model) switchModel(name string) tea.Cmd {
	if name == m.info.Name && m.phase == phaseReady {
		m.notice(noticeInfo, "", "Already using "+name+".")
		return nil
	}
	ctx, session := m.ctx, m.session
	m.op = opModel
	m.setStatusNote("switching to " + name + "…")
	return func() tea.Msg {
		info, err := session.SetModel(ctx, name)
		return modelSwitchedMsg{info, err}
	}
}

// pickerKey handles a key while the picker is open.
func (m *model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	chosen, closed := p.key(msg, m.keys)
	if closed || chosen {
		m.picker = nil
	}
	if !chosen {
		return nil
	}
	md := p.models[p.cursor]
	switch {
	case md.Broken != "":
		m.notice(noticeWarn, "", md.Name+" is unavailable: "+human.Line(md.Broken, 200)+"; choose another")
		return nil
	case !md.Tools:
		m.notice(noticeWarn, "", md.Name+" does not support tool calling, which lathe needs; choose another")
		return nil
	}
	return m.switchModel(md.Name)
}

// row is a model as the picker shows it: a remote one marked "cloud", one
// the server could not describe dimmed, with the reason.
func (p *modelPicker) row(i int, current string, st *theme) string {
	md := p.models[i]
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
