package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// A table is as wide as its content needs: each column as wide as its
// widest cell, a space on each side of every cell and a line between
// columns. Only a table wider than the width is made to fit: every column
// keeps room for its longest word if it can, the rest of the room goes to
// the columns in proportion to what they lack, and cells are wrapped in
// their columns like prose. With less than a column of room per column,
// lines are cut.

// tableGap is the width a table adds around every cell: a space each side
// and, between two columns, the line.
const tableGap = 3

// table renders a table.
func (l *layout) table(n *east.Table, width int) []string {
	var rows [][][]piece
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *east.TableHeader:
			rows = append(rows, l.cells(c, l.th.text.over(l.th.strong)))
		case *east.TableRow:
			rows = append(rows, l.cells(c, l.th.text))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	widths := l.columnWidths(rows, cols, width)
	var lines []string
	for i, r := range rows {
		lines = l.tableRow(lines, r, widths, n.Alignments)
		if i == 0 {
			lines = append(lines, l.tableRule(widths))
		}
	}
	return lines
}

// cells returns the pieces of each cell of a table row, on one line.
func (l *layout) cells(row ast.Node, st style) [][]piece {
	var cells [][]piece
	for c := row.FirstChild(); c != nil; c = c.NextSibling() {
		ps := l.inlines(c, st)
		for i := range ps {
			ps[i].text = strings.ReplaceAll(ps[i].text, "\n", " ")
		}
		cells = append(cells, ps)
	}
	return cells
}

// columnWidths returns the width of the text of each column.
func (l *layout) columnWidths(rows [][][]piece, cols, width int) []int {
	natural := make([]int, cols) // widest cell
	word := make([]int, cols)    // longest word
	for _, r := range rows {
		for c, cell := range r {
			w, longest := measure(cell)
			natural[c] = max(natural[c], w)
			word[c] = max(word[c], longest)
		}
	}
	room := width - tableGap*cols + 2 // a space left of the first cell, none right of the last
	total := 0
	for _, w := range natural {
		total += w
	}
	if total <= room {
		return natural
	}
	if room < cols {
		l.overflow = true
		room = cols
	}
	// Start from what each column needs at least, its longest word; if the
	// words alone do not fit, the columns with the longest are narrowed
	// first, so that as few words as possible are cut.
	widths := make([]int, cols)
	least := 0
	for c := range widths {
		widths[c] = max(min(word[c], natural[c]), 1)
		least += widths[c]
	}
	for ; least > room; least-- {
		widest := 0
		for c, w := range widths {
			if w > widths[widest] {
				widest = c
			}
		}
		widths[widest]--
	}
	// Share the rest in proportion to what each column still lacks.
	spare, lack := room-least, total-least
	for c := range widths {
		if lack > 0 {
			widths[c] += (natural[c] - widths[c]) * spare / lack
		}
	}
	// Rounding leaves a few columns of room: give them out left to right.
	used := 0
	for _, w := range widths {
		used += w
	}
	for c := 0; used < room && c < cols; c++ {
		if widths[c] < natural[c] {
			widths[c]++
			used++
		}
	}
	return widths
}

// measure returns the width of a cell's text and of its longest word.
func measure(ps []piece) (width, longest int) {
	word := 0
	for _, p := range ps {
		for _, f := range strings.SplitAfter(p.text, " ") {
			w := textWidth(strings.TrimSuffix(f, " "))
			word += w
			longest = max(longest, word)
			if strings.HasSuffix(f, " ") {
				word = 0
			}
		}
		width += textWidth(p.text)
	}
	return width, longest
}

// tableRow appends the lines of one table row: each cell wrapped in its
// column and aligned, the columns joined by the border.
func (l *layout) tableRow(lines []string, cells [][]piece, widths []int, align []east.Alignment) []string {
	wrapped := make([][][]piece, len(widths))
	height := 1
	for c := range widths {
		var cell []piece
		if c < len(cells) {
			cell = cells[c]
		}
		rows, overflow := wrap(cell, widths[c])
		l.overflow = l.overflow || overflow
		wrapped[c] = rows
		height = max(height, len(rows))
	}
	bar := piece{text: l.th.column, st: l.th.border}
	for i := range height {
		line := []piece{{text: " "}}
		for c, w := range widths {
			if c > 0 {
				line = append(line, piece{text: " "}, bar, piece{text: " "})
			}
			var text []piece
			if i < len(wrapped[c]) {
				text = wrapped[c][i]
			}
			line = appendAligned(line, text, w, alignment(align, c))
		}
		lines = append(lines, strings.TrimRight(lineOf(line), " "))
	}
	return lines
}

// alignment returns the alignment of column c.
func alignment(align []east.Alignment, c int) east.Alignment {
	if c < len(align) {
		return align[c]
	}
	return east.AlignNone
}

// appendAligned appends the text of a cell padded to width as aligned.
func appendAligned(line, text []piece, width int, align east.Alignment) []piece {
	w := 0
	for _, p := range text {
		w += textWidth(p.text)
	}
	left := 0
	switch align {
	case east.AlignRight:
		left = width - w
	case east.AlignCenter:
		left = (width - w) / 2
	}
	left = max(left, 0)
	line = append(line, piece{text: strings.Repeat(" ", left)})
	line = append(line, text...)
	return append(line, piece{text: strings.Repeat(" ", max(width-w-left, 0))})
}

// tableRule returns the line under a table's header.
func (l *layout) tableRule(widths []int) string {
	var b strings.Builder
	for c, w := range widths {
		if c > 0 {
			b.WriteString(l.th.cross)
		}
		n := w + 2
		if c == len(widths)-1 {
			n = w + 1 // no space right of the last cell
		}
		b.WriteString(strings.Repeat(l.th.row, n))
	}
	return lineOf([]piece{{text: b.String(), st: l.th.border}})
}
