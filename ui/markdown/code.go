package markdown

import (
	"fmt"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/yuin/goldmark/ast"

	"lathe/ui/markdown/internal/lexers"
)

// Code blocks are never wrapped: a line too long for the block is cut at
// its right edge and ends with "…". Wrapping would put the rest of the
// line at the block's left edge, where it reads as a line of its own, and
// copying it would give the code with a line break it does not have. A cut
// line is visibly incomplete instead, and what can be copied is exactly
// the start of the line, the way a pager shows long lines with less -S (a
// wider terminal shows more: the lines are cut again at every width). Tabs
// are expanded to stops every four columns, so that lines are measured as
// they are drawn. A reader who wants the rest asks for the lines folded
// (Doc.FoldCode): each row that goes on from the one above then starts
// with "↪" in the block's indent.

// tabStop is the width of a tab in code.
const tabStop = 4

// codeBlock renders a code block: its lines highlighted (in colour),
// indented, and cut to the width. Blank lines at both ends are dropped.
func (l *layout) codeBlock(n ast.Node, lang string, width int) []string {
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		b.Write(seg.Value(l.src))
	}
	code := b.String()
	var rows [][]piece
	switch {
	case l.code != nil && l.open && l.runsToEnd(n):
		partial := len(l.src) > 0 && l.src[len(l.src)-1] != '\n'
		rows, l.openCode = l.code.openRows(code, lang, partial), true
	case l.code != nil:
		rows = l.code.rows(code, lang)
	}
	if rows == nil {
		rows = plainRows(code)
	}
	for len(rows) > 0 && rowBlank(rows[0]) {
		rows = rows[1:]
	}
	for len(rows) > 0 && rowBlank(rows[len(rows)-1]) {
		rows = rows[:len(rows)-1]
	}
	room := l.room(width, codeIndent)
	indent := strings.Repeat(" ", codeIndent)
	lines := make([]string, 0, len(rows))
	for _, r := range rows {
		r = trimRowEnd(r)
		if len(r) == 0 {
			lines = append(lines, "")
			continue
		}
		if rowWidth(r) > room {
			l.codeCut = true
		}
		if l.foldCode && room > 1 {
			for i, f := range foldRow(r, room) {
				lead := indent
				if i > 0 {
					lead = indent[1:] + lineOf([]piece{{"↪", l.th.more, ""}})
				}
				lines = append(lines, lead+lineOf(f))
			}
			continue
		}
		cut, overflow := truncate(r, room, l.th.more)
		l.overflow = l.overflow || overflow
		lines = append(lines, indent+lineOf(cut))
	}
	return lines
}

// runsToEnd reports whether code block n runs to the end of the source:
// its fence is not closed (yet).
func (l *layout) runsToEnd(n ast.Node) bool {
	lines := n.Lines()
	return lines.Len() > 0 && lines.At(lines.Len()-1).Stop == len(l.src)
}

// foldRow cuts a row of pieces into rows of at most width cells, keeping
// every character.
func foldRow(ps []piece, width int) [][]piece {
	var rows [][]piece
	var row []piece
	room := width
	for _, p := range ps {
		for p.text != "" {
			if w := textWidth(p.text); w <= room {
				row, room = append(row, p), room-w
				break
			}
			head, tail := cutWidth(p.text, room)
			if head == "" && len(row) == 0 { // a character wider than the row
				head, tail = firstChar(p.text)
			}
			if head != "" {
				row = append(row, piece{head, p.st, p.link})
			}
			rows, row, room = append(rows, row), nil, width
			p.text = tail
		}
	}
	return append(rows, row)
}

// rowWidth is the cells a row of pieces takes.
func rowWidth(ps []piece) int {
	n := 0
	for _, p := range ps {
		n += textWidth(p.text)
	}
	return n
}

// firstChar splits s after its first character.
func firstChar(s string) (head, tail string) {
	for i := range s {
		if i > 0 {
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// plainRows splits code in lines of one piece each, without colour.
func plainRows(code string) [][]piece {
	code = strings.TrimSuffix(code, "\n")
	if code == "" {
		return nil
	}
	var rows [][]piece
	for line := range strings.SplitSeq(code, "\n") {
		text, _ := codeText(line, 0)
		rows = append(rows, []piece{{text: text}})
	}
	return rows
}

// rowBlank reports whether a row of code shows nothing.
func rowBlank(r []piece) bool {
	for _, p := range r {
		if strings.TrimLeft(p.text, " ") != "" {
			return false
		}
	}
	return true
}

// trimRowEnd drops the spaces that end a row of code.
func trimRowEnd(r []piece) []piece {
	for len(r) > 0 {
		last := &r[len(r)-1]
		t := strings.TrimRight(last.text, " ")
		if t != "" {
			if t != last.text {
				r = append(r[:len(r)-1:len(r)-1], piece{t, last.st, last.link})
			}
			return r
		}
		r = r[:len(r)-1]
	}
	return r
}

// codeText returns a piece of a code line as it is drawn from column col:
// tabs expanded and control characters made safe, and the column after it.
func codeText(s string, col int) (string, int) {
	if strings.IndexByte(s, '\t') < 0 {
		t := cleanText([]byte(s))
		return t, col + textWidth(t)
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			break
		}
		t := cleanText([]byte(s[:i]))
		b.WriteString(t)
		col += textWidth(t)
		n := tabStop - col%tabStop
		b.WriteString(strings.Repeat(" ", n))
		col += n
		s = s[i+1:]
	}
	t := cleanText([]byte(s))
	b.WriteString(t)
	return b.String(), col + textWidth(t)
}

// highlighter colours code with chroma in one theme's colours.
type highlighter struct {
	style  *chroma.Style
	styles map[chroma.TokenType]style // resolved from style, as tokens need them
	lexers map[string]chroma.Lexer    // by language name, nil if there is none
	open   openCode                   // the last open code block's lines
}

// lexersKept bounds how many language names a highlighter remembers: a
// fence's name streams in a letter at a time ("g", "go").
const lexersKept = 64

// newHighlighter returns a highlighter for chroma style entries.
func newHighlighter(entries chroma.StyleEntries) (*highlighter, error) {
	st, err := chroma.NewStyle("lathe", entries)
	if err != nil {
		return nil, fmt.Errorf("code colours: %w", err)
	}
	return &highlighter{style: st, styles: map[chroma.TokenType]style{}, lexers: map[string]chroma.Lexer{}}, nil
}

// lexer returns the lexer of a language, nil if there is none. Code
// without a language is not guessed at: a guess is often wrong (command
// output read as some language), and costs a pass of every lexer's
// analyser over the code at every render. chroma's look-up is cached: a
// name it does not know makes it match every lexer's file name patterns,
// which takes milliseconds. The first look-up of all reads every lexer's
// configuration (6–9 ms, once), which lathe's start no longer does.
func (h *highlighter) lexer(lang string) chroma.Lexer {
	if lang == "" {
		return nil
	}
	l, ok := h.lexers[lang]
	if !ok {
		if len(h.lexers) == lexersKept {
			clear(h.lexers)
		}
		l = lexers.Get(lang)
		if l != nil {
			l = chroma.Coalesce(l)
		}
		h.lexers[lang] = l
	}
	return l
}

// rows splits code in lines of coloured pieces, with the lexer of the
// language named, or as plain text. It returns nil if the code cannot be
// read.
func (h *highlighter) rows(code, lang string) [][]piece {
	lexed := h.lexLines(code, 0, lang)
	if lexed == nil {
		return nil
	}
	rows := make([][]piece, len(lexed))
	for i, l := range lexed {
		rows[i] = l.row
	}
	return rows
}

// tokenStyle returns the style of a token type.
func (h *highlighter) tokenStyle(t chroma.TokenType) style {
	if st, ok := h.styles[t]; ok {
		return st
	}
	e := h.style.Get(t)
	var st style
	if e.Colour.IsSet() {
		st.fg = fmt.Sprintf("38;2;%d;%d;%d", e.Colour.Red(), e.Colour.Green(), e.Colour.Blue())
	}
	if e.Background.IsSet() {
		st.bg = fmt.Sprintf("48;2;%d;%d;%d", e.Background.Red(), e.Background.Green(), e.Background.Blue())
	}
	if e.Bold == chroma.Yes {
		st.attrs |= attrBold
	}
	if e.Italic == chroma.Yes {
		st.attrs |= attrItalic
	}
	if e.Underline == chroma.Yes {
		st.attrs |= attrUnderline
	}
	h.styles[t] = st
	return st
}
