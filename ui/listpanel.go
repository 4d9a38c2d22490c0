package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// listPanel is a list to choose from in the input's place: the model and
// session pickers. Its owner holds the items and renders their rows.
type listPanel struct {
	title   string
	waiting string // shown while the items load
	empty   string // shown when there are none
	action  string // what Enter does: "switch", "resume"
	loading bool
	cursor  int
	items   int
}

// key moves the cursor; chosen reports Enter on an item, closed Esc.
func (l *listPanel) key(msg tea.KeyPressMsg, keys keyMap) (chosen, closed bool) {
	switch {
	case key.Matches(msg, keys.Interrupt):
		return false, true
	case key.Matches(msg, keys.Prev):
		l.cursor = max(l.cursor-1, 0)
	case key.Matches(msg, keys.Next):
		l.cursor = min(l.cursor+1, max(l.items-1, 0))
	case key.Matches(msg, keys.Send):
		return l.items > 0, false
	}
	return false, false
}

// loaded shows n items, the cursor on selected.
func (l *listPanel) loaded(n, selected int) {
	l.loading, l.items, l.cursor = false, n, min(max(selected, 0), max(n-1, 0))
}

// view renders the panel in at most height lines, row giving each visible
// item's text.
func (l *listPanel) view(width, height int, st *theme, row func(i int) string) string {
	lines := []string{st.rule.Render(strings.Repeat("─", width)), " " + st.dialogTitle.Render(l.title)}
	switch {
	case l.loading:
		lines = append(lines, indent+st.meta.Render(l.waiting))
	case l.items == 0:
		lines = append(lines, indent+st.meta.Render(l.empty))
	}
	room := max(height-3, 1)
	first := min(max(l.cursor-room+1, 0), max(l.items-room, 0))
	for i := first; i < l.items && i < first+room; i++ {
		mark := "  "
		if i == l.cursor {
			mark = st.accent.Render("› ")
		}
		lines = append(lines, ansi.Truncate(" "+mark+row(i), width, "…"))
	}
	lines = append(lines, " "+st.key.Render("enter")+" "+l.action+"  "+st.key.Render("esc")+" close")
	return strings.Join(lines, "\n")
}
