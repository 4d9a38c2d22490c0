package markdown

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// This file lays out the blocks of a parsed markdown document. Every block
// is rendered to lines at the width it is given; a container (a list item,
// a quote) renders its children narrower and puts its own prefix in front
// of their lines, so a child's lines never reach back under the prefix:
// wrapped list items keep their hanging indent, nested lists sit under
// their parent's text and code stays inside its block.

const (
	docMargin  = 2 // columns left free on each side of the document
	codeIndent = 2 // columns a code block is indented by
	quoteWidth = 2 // columns of a quote's bar and the space after it
	defIndent  = 2 // columns a definition is indented by under its term
)

// layout renders one parsed document in one theme.
type layout struct {
	th   *theme
	src  []byte
	code *highlighter // colours code blocks; nil leaves them plain

	// overflow is set when some block had less room than it needs (a
	// list marker wider than the whole width, say): the document then cuts
	// its lines to the width.
	overflow bool

	foldCode bool // fold code lines longer than their block, not cut them
	codeCut  bool // some code line is longer than its block

	open     bool // src ends a text still streaming in (Renderer.renderOpen)
	openCode bool // a code block open at its end was highlighted from kept lines
}

// document returns the lines of doc at width: its top-level blocks, one
// blank line between two, inside a margin on each side. No line is wider
// than width or ends in blanks.
func (l *layout) document(doc ast.Node, width int) []string {
	inner := max(width-2*docMargin, 1)
	margin := strings.Repeat(" ", min(docMargin, width-inner))
	lines := l.blocks(doc, inner, false)
	for i, line := range lines {
		if line != "" {
			lines[i] = margin + line
		}
	}
	if l.overflow {
		for i, line := range lines {
			lines[i] = cutLine(line, width)
		}
	}
	return lines
}

// cutLine cuts a rendered line to width cells, closing what it opened.
func cutLine(line string, width int) string {
	if ansi.StringWidth(line) <= width {
		return line
	}
	cut := strings.TrimRight(ansi.Truncate(line, width, ""), " ")
	if strings.IndexByte(cut, ansiESC) >= 0 {
		cut += ansiReset + ansi.ResetHyperlink()
	}
	return cut
}

// ansiESC starts every escape sequence.
const ansiESC = 0x1b

// blocks returns the lines of the block children of n, one after the
// other, with a blank line between two unless tight. Children that show
// nothing take no room.
func (l *layout) blocks(n ast.Node, width int, tight bool) []string {
	var lines []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := l.block(c, width)
		if len(b) == 0 {
			continue
		}
		if len(lines) > 0 && !tight {
			lines = append(lines, "")
		}
		lines = append(lines, b...)
	}
	return lines
}

// block returns the lines of one block at width.
func (l *layout) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return l.prose(l.inlines(n, l.th.text), width)
	case *ast.Heading:
		return l.heading(n, width)
	case *ast.ThematicBreak:
		return []string{lineOf([]piece{{text: l.th.hr[:min(len(l.th.hr), width)], st: l.th.rule}})}
	case *ast.FencedCodeBlock:
		return l.codeBlock(n, string(n.Language(l.src)), width)
	case *ast.CodeBlock:
		return l.codeBlock(n, "", width)
	case *ast.Blockquote:
		return l.quote(n, width)
	case *ast.List:
		return l.list(n, width)
	case *ast.HTMLBlock:
		return l.html(n, width)
	case *east.Table:
		return l.table(n, width)
	case *east.DefinitionList:
		return l.definitions(n, width)
	}
	return l.blocks(n, width, false)
}

// room returns the width left inside a prefix of the given width, at
// least one column (the lines then overflow).
func (l *layout) room(width, prefix int) int {
	if width-prefix < 1 {
		l.overflow = true
		return 1
	}
	return width - prefix
}

// prose wraps pieces at width; pieces that show nothing give no lines.
func (l *layout) prose(ps []piece, width int) []string {
	rows, overflow := wrap(ps, width)
	l.overflow = l.overflow || overflow
	if len(rows) == 1 && len(rows[0]) == 0 {
		return nil
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = lineOf(r)
	}
	return lines
}

// heading renders a heading without its markup. In colour, level 1 is a
// banner and the other levels are bold in the heading colour; in the plain
// theme a rule is drawn under the text ("=" for level 1, "-" for the rest).
func (l *layout) heading(n *ast.Heading, width int) []string {
	th := l.th
	if th.plain {
		lines := l.prose(l.inlines(n, th.text), width)
		if len(lines) == 0 {
			return nil
		}
		under := th.underN
		if n.Level == 1 {
			under = th.underline1
		}
		w := 0
		for _, line := range lines {
			w = max(w, textWidth(line))
		}
		return append(lines, strings.Repeat(under, w))
	}
	if n.Level > 1 {
		return l.prose(l.inlines(n, th.heading), width)
	}
	rows, overflow := wrap(l.inlines(n, th.h1), l.room(width, 2))
	l.overflow = l.overflow || overflow
	if len(rows) == 1 && len(rows[0]) == 0 {
		return nil
	}
	pad := piece{text: " ", st: th.h1}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = lineOf(append(append([]piece{pad}, r...), pad))
	}
	return lines
}

// quote renders a block quote: its blocks behind a bar.
func (l *layout) quote(n *ast.Blockquote, width int) []string {
	body := l.blocks(n, l.room(width, quoteWidth), false)
	bar := lineOf([]piece{{text: l.th.quote, st: l.th.text}})
	for i, line := range body {
		if line == "" {
			body[i] = bar
		} else {
			body[i] = bar + " " + line
		}
	}
	return body
}

// list renders a list. Each item's blocks are rendered narrower by the
// width of its marker and hang under the text after the marker; numbers
// are right-aligned, so that the items of a list all hang at one column.
// A task item's box takes the place of its bullet.
func (l *layout) list(n *ast.List, width int) []string {
	numberW := 0
	if n.IsOrdered() {
		numberW = len(strconv.Itoa(n.Start + n.ChildCount() - 1))
	}
	var lines []string
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		if i > 0 && !n.IsTight {
			lines = append(lines, "")
		}
		marker := l.th.bullet
		if n.IsOrdered() {
			num := strconv.Itoa(n.Start + i)
			marker = strings.Repeat(" ", numberW-len(num)) + num + string(n.Marker)
		} else if box, ok := l.takeTaskBox(item); ok {
			marker = box
		}
		lines = l.item(lines, item, marker, width, n.IsTight)
		i++
	}
	return lines
}

// item appends the lines of one list item behind its marker.
func (l *layout) item(lines []string, item ast.Node, marker string, width int, tight bool) []string {
	hang := textWidth(marker) + 1
	body := l.blocks(item, l.room(width, hang), tight)
	mark := lineOf([]piece{{text: marker, st: l.th.text}})
	if len(body) == 0 {
		return append(lines, mark)
	}
	indent := strings.Repeat(" ", hang)
	for j, line := range body {
		switch {
		case j == 0:
			line = mark + " " + line
		case line != "":
			line = indent + line
		}
		lines = append(lines, line)
	}
	return lines
}

// takeTaskBox removes the check box that starts a task item and returns
// the box to draw in place of the bullet.
func (l *layout) takeTaskBox(item ast.Node) (string, bool) {
	first := item.FirstChild()
	if first == nil {
		return "", false
	}
	box, ok := first.FirstChild().(*east.TaskCheckBox)
	if !ok {
		return "", false
	}
	first.RemoveChild(first, box)
	if box.IsChecked {
		return l.th.ticked, true
	}
	return l.th.unticked, true
}

// html renders an HTML block as written, line by line: a terminal cannot
// render it, and dropping tags loses what they enclose.
func (l *layout) html(n *ast.HTMLBlock, width int) []string {
	var lines []string
	add := func(v []byte) {
		ps := []piece{{text: cleanText([]byte(strings.TrimRight(string(v), "\r\n"))), st: l.th.text}}
		if b := l.prose(ps, width); len(b) > 0 {
			lines = append(lines, b...)
		} else {
			lines = append(lines, "")
		}
	}
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		add(seg.Value(l.src))
	}
	if n.HasClosure() {
		add(n.ClosureLine.Value(l.src))
	}
	return trimBlank(lines)
}

// definitions renders a definition list: each term, and its definitions
// indented under it; a blank line before every term but the first.
func (l *layout) definitions(n *east.DefinitionList, width int) []string {
	var lines []string
	indent := strings.Repeat(" ", defIndent)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *east.DefinitionTerm:
			if len(lines) > 0 {
				lines = append(lines, "")
			}
			lines = append(lines, l.prose(l.inlines(c, l.th.text.over(l.th.strong)), width)...)
		default:
			for _, line := range l.blocks(c, l.room(width, defIndent), true) {
				if line != "" {
					line = indent + line
				}
				lines = append(lines, line)
			}
		}
	}
	return lines
}

// trimBlank drops the blank lines at both ends of lines.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
