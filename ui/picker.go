package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
)

// modelPicker lists the installed models, marking which support tools, and
// switches to the one chosen. It takes the input's place.
type modelPicker struct {
	loading bool
	models  []orchestrator.ModelSummary
	cursor  int
}

// modelsMsg carries the installed models, or why they could not be listed.
type modelsMsg struct {
	models []orchestrator.ModelSummary
	err    error
}

// modelSwitched reports the end of a model switch.
type modelSwitched struct {
	info orchestrator.ModelInfo
	err  error
}

func (m *model) listModels() tea.Cmd {
	ctx, client, base := m.ctx, m.opts.Engine.Client, m.opts.Engine.BaseURL
	return func() tea.Msg {
		models, err := orchestrator.ListModels(ctx, client, base)
		return modelsMsg{models, err}
	}
}

func (m *model) switchModel(name string) tea.Cmd {
	ctx, session := m.ctx, m.session
	m.setStatusNote("switching to " + name + "…")
	return func() tea.Msg {
		info, err := session.SetModel(ctx, name)
		return modelSwitched{info, err}
	}
}

// pickerKey handles a key while the picker is open.
func (m *model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	switch {
	case key.Matches(msg, m.keys.Interrupt):
		m.picker = nil
	case key.Matches(msg, m.keys.Prev):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, m.keys.Next):
		p.cursor = min(p.cursor+1, max(len(p.models)-1, 0))
	case key.Matches(msg, m.keys.Send) && len(p.models) > 0:
		chosen := p.models[p.cursor]
		m.picker = nil
		if !chosen.Tools {
			m.notice(noticeWarn, "", chosen.Name+" does not support tool calling, which lathe needs; choose another")
			return nil
		}
		return m.switchModel(chosen.Name)
	}
	return nil
}

func (p *modelPicker) view(width, height int, current string, st *theme) string {
	lines := []string{st.rule.Render(strings.Repeat("─", width)), " " + st.dialogTitle.Render("Choose a model")}
	switch {
	case p.loading:
		lines = append(lines, indent+st.meta.Render("listing installed models…"))
	case len(p.models) == 0:
		lines = append(lines, indent+st.meta.Render("no model is installed: pull one with \"ollama pull "+orchestrator.SuggestedModel+"\""))
	}
	room := max(height-3, 1)
	first := min(max(p.cursor-room+1, 0), max(len(p.models)-room, 0))
	for i := first; i < len(p.models) && i < first+room; i++ {
		lines = append(lines, p.row(i, width, current, st))
	}
	lines = append(lines, " "+st.key.Render("enter")+" switch  "+st.key.Render("esc")+" close")
	return strings.Join(lines, "\n")
}

func (p *modelPicker) row(i, width int, current string, st *theme) string {
	md := p.models[i]
	cursor := "  "
	if i == p.cursor {
		cursor = st.accent.Render("› ")
	}
	tools := st.ok.Render("tools")
	if !md.Tools {
		tools = st.failed.Render("no tools")
	}
	name := md.Name
	if name == current {
		name += " (current)"
	}
	row := fmt.Sprintf("%s%-28s %6s %-7s %s  %s", cursor, name, md.ParameterSize, md.Quantization, humanBytes(md.Size), tools)
	return ansi.Truncate(" "+row, width, "…")
}

// humanBytes writes n bytes as "4.9 GB".
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for x := n / unit; x >= unit; x /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
