package tui

import (
	"fmt"
	"lathe/internal/human"

	tea "charm.land/bubbletea/v2"

	"lathe/provider"
)

// modelPicker lists the installed models, marking which support tools, and
// switches to the one chosen. It takes the input's place.
type modelPicker struct {
	listPanel
	models []provider.ModelSummary
}

func newModelPicker(suggested string) *modelPicker {
	return &modelPicker{listPanel: listPanel{title: "Choose a model", waiting: "listing installed models…",
		empty:  "no model is installed: pull one with \"ollama pull " + suggested + "\"",
		action: "switch", loading: true}}
}

// modelsMsg carries the installed models, or why they could not be listed.
type modelsMsg struct {
	models []provider.ModelSummary
	err    error
}

// modelSwitched reports the end of a model switch.
type modelSwitched struct {
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

func (m *model) switchModel(name string) tea.Cmd {
	ctx, session := m.ctx, m.session
	m.op = opModel
	m.setStatusNote("switching to " + name + "…")
	return func() tea.Msg {
		info, err := session.SetModel(ctx, name)
		return modelSwitched{info, err}
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
	if !md.Tools {
		m.notice(noticeWarn, "", md.Name+" does not support tool calling, which lathe needs; choose another")
		return nil
	}
	return m.switchModel(md.Name)
}

// row is a model as the picker shows it.
func (p *modelPicker) row(i int, current string, st *theme) string {
	md := p.models[i]
	tools := st.ok.Render("tools")
	if !md.Tools {
		tools = st.failed.Render("no tools")
	}
	name := md.Name
	if name == current {
		name += " (current)"
	}
	return fmt.Sprintf("%-28s %6s %-7s %s  %s", name, md.ParameterSize, md.Quantization, human.Bytes(md.Size), tools)
}
