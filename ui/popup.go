package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// popupView renders the completion popup in at most rows lines (one at
// least), the highlighted command in view: names in a column, their
// descriptions aligned after them and cut at the width.
func (m *model) popupView(rows int) []string {
	cs := m.popup()
	if len(cs) == 0 {
		return nil
	}
	rows = max(rows, 1)
	first := min(max(m.completion-rows+1, 0), max(len(cs)-rows, 0))
	name := 0
	for _, c := range cs {
		name = max(name, len(c.name)+1)
	}
	var lines []string
	for i := first; i < len(cs) && i < first+rows; i++ {
		mark := "  "
		if i == m.completion {
			mark = m.st.accent.Render("› ")
		}
		line := " " + mark + m.st.key.Render(pad("/"+cs[i].name, name)) + "  " + m.st.meta.Render(cs[i].help)
		lines = append(lines, ansi.Truncate(line, m.width, "…"))
	}
	return lines
}

// pad fills s with spaces to width columns.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(width-ansi.StringWidth(s), 0))
}
