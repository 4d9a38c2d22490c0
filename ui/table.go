package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// tableItem is a notice laid out in two columns, a name and what it is,
// each description wrapping under itself: /mode, /tools.
type tableItem struct {
	title string
	rows  [][2]string
	foot  string // a line after the table; "" for none
	r     render
}

func (t *tableItem) lines(width int, st *theme) []string {
	if l, ok := t.r.get(width); ok {
		return l
	}
	out := append([]string{indent + st.statusKey.Render(t.title)}, table(t.rows, width, indent, st)...)
	if t.foot != "" {
		out = append(append(out, ""), wrap(t.foot, width, indent, indent, st.notice)...)
	}
	return t.r.set(width, append(out, ""))
}

func (t *tableItem) invalidate() { t.r.invalidate() }

// helpItem is /help: the commands, and the keys in two columns when the
// width allows, so that it fits a 24-line terminal.
type helpItem struct {
	title          string // "" for "Commands and keys"
	commands, keys [][2]string
	r              render
}

func (h *helpItem) lines(width int, st *theme) []string {
	if l, ok := h.r.get(width); ok {
		return l
	}
	title := h.title
	if title == "" {
		title = "Commands and keys"
	}
	out := append([]string{indent + st.statusKey.Render(title)}, table(h.commands, width, indent, st)...)
	if len(h.keys) > 0 {
		out = append(append(out, ""), keyColumns(h.keys, width, st)...)
	}
	return h.r.set(width, append(out, ""))
}

func (h *helpItem) invalidate() { h.r.invalidate() }

// columnGap separates two columns.
const columnGap = "   "

// table renders rows after margin in two columns, in width: the first as
// wide as its widest cell, the second wrapped under itself.
func table(rows [][2]string, width int, margin string, st *theme) []string {
	first := 0
	for _, r := range rows {
		first = max(first, ansi.StringWidth(r[0]))
	}
	hang := strings.Repeat(" ", len(margin)+first+2)
	var out []string
	for _, r := range rows {
		lead := st.notice.Render(margin + pad(r[0], first) + "  ")
		out = append(out, wrap(r[1], width, lead, hang, st.notice)...)
	}
	return out
}

// keyColumns renders rows as two tables side by side, the first half on
// the left, when they fit the width; else as one table.
func keyColumns(rows [][2]string, width int, st *theme) []string {
	half := (len(rows) + 1) / 2
	left, right := rows[:half], rows[half:]
	lw, rw := tableWidth(left), tableWidth(right)
	if len(indent)+lw+len(columnGap)+rw > width {
		return table(rows, width, indent, st)
	}
	l, r := table(left, width, indent, st), table(right, rw, "", st)
	out := make([]string, len(l))
	for i := range l {
		out[i] = l[i]
		if i < len(r) {
			out[i] = pad(l[i], len(indent)+lw) + columnGap + r[i]
		}
	}
	return out
}

// tableWidth is how wide table lays out rows, its margin aside, when
// nothing wraps.
func tableWidth(rows [][2]string) int {
	first, second := 0, 0
	for _, r := range rows {
		first, second = max(first, ansi.StringWidth(r[0])), max(second, ansi.StringWidth(r[1]))
	}
	return first + 2 + second
}
