package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// popup is what the completion popup offers: nothing while the input
// shows a prompt recalled from the history, unchanged (Up and Down go on
// through the history), or once Esc closed it.
func (in *input) popup() []slashCommand {
	if in.closed || in.recalled() {
		return nil
	}
	return completions(in.table, in.value())
}

// closePopup closes the popup, until the next edit or prompt.
func (in *input) closePopup() { in.closed = true }

// openPopup lets the popup show again, after an edit or a prompt sent.
func (in *input) openPopup() { in.closed = false }

// resetCompletion highlights the popup's first command again.
func (in *input) resetCompletion() { in.completion = 0 }

// popupKey moves through the completions and accepts one: Tab puts it in
// the input, Enter on another command than the one typed puts it there to
// be sent (send). It reports whether msg was such a key.
func (in *input) popupKey(msg tea.KeyPressMsg) (send, handled bool) {
	cs := in.popup()
	if len(cs) == 0 {
		return false, false
	}
	in.completion = min(in.completion, len(cs)-1)
	switch {
	case key.Matches(msg, in.keys.Prev):
		in.completion = max(in.completion-1, 0)
	case key.Matches(msg, in.keys.Next):
		in.completion = min(in.completion+1, len(cs)-1)
	case key.Matches(msg, in.keys.Complete):
		in.set("/" + cs[in.completion].name + " ")
	case key.Matches(msg, in.keys.Send) && "/"+cs[in.completion].name != in.value():
		in.set("/" + cs[in.completion].name)
		return true, true
	default:
		return false, false
	}
	return false, true
}

// popupView renders the completion popup in at most rows lines (one at
// least), the highlighted command in view: names in a column, their
// descriptions aligned after them and cut at the width.
func (in *input) popupView(rows int) []string {
	cs := in.popup()
	if len(cs) == 0 {
		return nil
	}
	st := in.st
	rows = max(rows, 1)
	first := min(max(in.completion-rows+1, 0), max(len(cs)-rows, 0))
	name := 0
	for _, c := range cs {
		name = max(name, len(c.name)+1)
	}
	var lines []string
	for i := first; i < len(cs) && i < first+rows; i++ {
		mark := "  "
		if i == in.completion {
			mark = st.accent.Render("› ")
		}
		line := " " + mark + st.key.Render(pad("/"+cs[i].name, name)) + "  " + st.meta.Render(cs[i].help)
		lines = append(lines, ansi.Truncate(line, in.width, "…"))
	}
	return lines
}

// pad fills s with spaces to width columns.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(width-ansi.StringWidth(s), 0))
}
