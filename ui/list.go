package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// list is a list to choose from in the input's place: the installed
// models, the saved sessions, the messages /search found, the requests
// /rewind goes back to. Its items come once they are read, in the
// background; row renders one, as its owner shows it. Esc closes it, Enter
// chooses the item under the cursor: either tells the root with a message
// (panelClosedMsg, chosenMsg), after which the list takes no more keys.
type list[T any] struct {
	text          listText
	st            *theme
	keys          keyMap
	row           func(T) string
	items         []T
	loading       bool
	cursor        int
	width, height int
	closed        bool
}

var _ panel = (*list[string])(nil)

// listText is what a list says: its title, while its items load, when
// there are none, and what Enter does ("switch", "resume").
type listText struct{ title, waiting, empty, action string }

// chosenMsg tells the root that item was chosen in the list p, which
// closes.
type chosenMsg[T any] struct {
	p    panel
	item T
}

func newList[T any](text listText, row func(T) string, st *theme, keys keyMap) *list[T] {
	return &list[T]{text: text, row: row, st: st, keys: keys, loading: true}
}

// setItems shows items, the cursor on selected.
func (l *list[T]) setItems(items []T, selected int) {
	n := len(items)
	l.loading, l.items, l.cursor = false, items, min(max(selected, 0), max(n-1, 0))
}

// Update moves the cursor; Esc closes the list, Enter chooses an item.
func (l *list[T]) Update(msg tea.Msg) (panel, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || l.closed {
		return l, nil
	}
	switch {
	case key.Matches(k, l.keys.Interrupt):
		l.closed = true
		return l, send(panelClosedMsg{l})
	case key.Matches(k, l.keys.Prev):
		l.cursor = max(l.cursor-1, 0)
	case key.Matches(k, l.keys.Next):
		l.cursor = min(l.cursor+1, max(len(l.items)-1, 0))
	case key.Matches(k, l.keys.Send) && len(l.items) > 0:
		l.closed = true
		return l, send(chosenMsg[T]{l, l.items[l.cursor]})
	}
	return l, nil
}

func (l *list[T]) over() bool { return l.closed }

// SetSize gives the list its width and the most lines it may take.
func (l *list[T]) SetSize(width, height int) { l.width, l.height = width, height }

// View renders the list in at most its height, the cursor's item in view:
// only the rows shown are rendered.
func (l *list[T]) View() string {
	st, width := l.st, l.width
	lines := []string{st.rule.Render(strings.Repeat("─", width)), " " + st.dialogTitle.Render(l.text.title)}
	switch {
	case l.loading:
		lines = append(lines, indent+st.meta.Render(l.text.waiting))
	case len(l.items) == 0:
		lines = append(lines, indent+st.meta.Render(l.text.empty))
	}
	room := max(l.height-3, 1)
	first := min(max(l.cursor-room+1, 0), max(len(l.items)-room, 0))
	for i := first; i < len(l.items) && i < first+room; i++ {
		mark := "  "
		if i == l.cursor {
			mark = st.accent.Render("› ")
		}
		lines = append(lines, ansi.Truncate(" "+mark+l.row(l.items[i]), width, "…"))
	}
	lines = append(lines, " "+st.key.Render("enter")+" "+l.text.action+"  "+st.key.Render("esc")+" close")
	return strings.Join(lines, "\n")
}

// panelKey hands a key to the panel.
func (m *model) panelKey(msg tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	m.panel, cmd = m.panel.Update(msg)
	return cmd
}

// closePanel closes p, and reports whether it was the panel open: a
// choice in a list closed meanwhile is no longer waited on.
func (m *model) closePanel(p panel) bool {
	if m.panel != p {
		return false
	}
	m.panel = nil
	return true
}
