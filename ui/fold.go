package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// What a dialog asks about is shown whole, at every width: a line longer
// than the dialog is folded into rows, never cut. A row that goes on from
// the one above starts with "↪"; a break falls before a blank where one is
// near, and that blank starts the next row, so that "↪ -data" and
// "↪-data" read as what they are. Joined, a line's rows are the line.

// fold cuts line into rows of at most width columns, keeping every
// character.
func fold(line string, width int) []string {
	width = max(width, 2)
	var rows []string
	for ansi.StringWidth(line) > width {
		cut := len(ansi.Truncate(line, width, ""))
		if cut == 0 { // a character wider than the row
			_, cut = firstRune(line)
		}
		if i := strings.LastIndexByte(line[:cut], ' '); i > 0 && i >= cut/2 && strings.TrimLeft(line[:i], " ") != "" {
			cut = i // the blank starts the next row
		}
		rows = append(rows, line[:cut])
		line = line[cut:]
	}
	return append(rows, line)
}

// firstRune is the first character of s and its length in bytes.
func firstRune(s string) (string, int) {
	for i := range s {
		if i > 0 {
			return s[:i], i
		}
	}
	return s, len(s)
}

// bodyRow is a row of a dialog's body: a piece of one of its lines.
type bodyRow struct {
	text  string
	start string // how its line starts ("+", "@@"), which styles a diff's rows
	cont  bool   // it goes on from the row above
}

// foldLines folds each of lines into rows of at most width columns.
func foldLines(lines []string, width int) []bodyRow {
	rows := make([]bodyRow, 0, len(lines))
	for _, l := range lines {
		start := l[:min(len(l), 2)]
		for j, piece := range fold(tabsToSpaces(l), width) {
			rows = append(rows, bodyRow{text: piece, start: start, cont: j > 0})
		}
	}
	return rows
}

// foldedRows keeps a body's rows for one width: frames lay a dialog out
// 30 times a second, and a diff can be long.
type foldedRows struct {
	width int
	rows  []bodyRow
}

// at is the rows of lines at width, folded again only when the width
// changed.
func (f *foldedRows) at(width int, lines func() []string) []bodyRow {
	if f.rows == nil || f.width != width {
		f.width, f.rows = width, foldLines(lines(), width)
	}
	return f.rows
}

// foldedView renders lines folded to width under the margin, each row in
// its line's style, the rows that go on from another marked.
func foldedView(lines []string, width int, style func(line string) lipgloss.Style, st *theme) []string {
	out := make([]string, 0, len(lines))
	for _, r := range foldLines(lines, width-bodyIndent) {
		lead := indent + "  "
		if r.cont {
			lead = indent + " " + st.meta.Render("↪")
		}
		out = append(out, lead+style(r.start).Render(r.text))
	}
	return out
}
