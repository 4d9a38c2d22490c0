package markdown

import (
	"strings"

	"github.com/alecthomas/chroma/v2"

	"lathe/ui/markdown/internal/lexers"
)

// A code block still streaming in is rendered again at every frame, and
// lexing it whole each time makes a frame's cost grow with the block.
// chroma cannot resume a lexer where it stopped, so the open block's lines
// are kept from one render to the next, and a render lexes again only from
// a few lines before the end of those kept: from the start of a line, in
// the lexer's first state. That is only right where the whole lex is in
// its first state too (not inside a string, a comment or a JSON object
// running over lines), so a restart is never next to a string or a
// comment (a line that ends in one or starts with one), and the lines
// lexed again that were kept must come out as they were kept, token for
// token, one of them with more than blanks; otherwise, or while a kept
// line has something the lexer could not read (an unclosed raw string),
// the block is lexed whole. What can still differ from the whole lex is a
// line before the restart that text coming later would lex differently (a
// "/*" whose "*/" has not come yet, a heredoc before its end): the block
// is lexed whole once it is finished (Doc renders finished blocks, and a
// finished tail with an open block, again), so that lasts while it
// streams at most.

// restartLines is how many kept lines a render lexes again, to check the
// restart against them.
const restartLines = 2

// restartReach bounds how far before the end of the kept lines a restart
// looks for a line showing something (blank lines read the same in any
// state, so they cannot check it).
const restartReach = 8

// openCode is the lexed lines of the last open code block rendered.
type openCode struct {
	lang  string
	text  string      // the complete lines lexed, each ending in "\n"
	lines []codeLexed // one per line of text

	resumed int // renders that lexed from a kept line, for tests
}

// codeLexed is one lexed line of code: where it starts, its tokens (the
// newline left out, neighbours of one type joined) and its row.
type codeLexed struct {
	start int
	toks  []chroma.Token
	row   []piece
	err   bool // the lexer could not read some of it (an unclosed string, say)
}

// openRows returns the rows of an open code block as rows would, lexing
// again only its last lines when code extends the block rendered last;
// partial says its last line is still being written. It returns nil if
// the code cannot be read.
func (h *highlighter) openRows(code, lang string, partial bool) [][]piece {
	o := &h.open
	if strings.IndexByte(code, '\r') >= 0 { // the lexer drops it: the lines' offsets would be off
		*o = openCode{}
		return h.rows(code, lang)
	}
	whole := code // the complete lines
	if partial {
		last := strings.TrimSuffix(code, "\n") // the parser ends every line with one
		whole = code[:strings.LastIndexByte(last, '\n')+1]
	}
	from := 0
	if o.lang == lang && strings.HasPrefix(whole, o.text) {
		from = o.restart()
	}
	lexed := h.lexLines(code[o.startOf(from):], o.startOf(from), lang)
	if lexed == nil {
		*o = openCode{}
		return nil
	}
	if from > 0 && !o.agrees(from, lexed) {
		from = 0
		if lexed = h.lexLines(code, 0, lang); lexed == nil {
			*o = openCode{}
			return nil
		}
	}
	if from > 0 {
		o.resumed++
	}
	lines := append(o.lines[:from], lexed...)
	rows := make([][]piece, len(lines))
	for i, l := range lines {
		rows[i] = l.row
	}
	// Keep the complete lines only: the last one is still being written.
	if n := len(lines); n > 0 && lines[n-1].start == len(whole) {
		lines = lines[:n-1]
	}
	o.lang, o.text, o.lines = lang, whole, lines[:len(lines):len(lines)]
	return rows
}

// restart returns the kept line to lex again from: restartLines before
// the end, or further back to take in a line that shows something; 0 (the
// whole block) if there is none within restartReach.
func (o *openCode) restart() int {
	n := len(o.lines)
	for _, l := range o.lines {
		if l.err {
			return 0
		}
	}
	for from := n - restartLines; from > 0 && from >= n-restartReach; from-- {
		prev, line := o.lines[from-1].toks, o.lines[from].toks
		if o.linesBlank(from) || len(prev) > 0 && stringOrComment(prev[len(prev)-1]) || len(line) > 0 && stringOrComment(line[0]) {
			continue
		}
		return from
	}
	return 0
}

// stringOrComment reports whether a token is a string or a comment, which
// may go on over the next line, where lexing cannot start over.
func stringOrComment(t chroma.Token) bool {
	return t.Type.InCategory(chroma.LiteralString) || t.Type.InCategory(chroma.Comment)
}

// linesBlank reports whether the kept lines from line i on show nothing.
func (o *openCode) linesBlank(i int) bool {
	for _, l := range o.lines[i:] {
		if !tokensBlank(l.toks) {
			return false
		}
	}
	return true
}

// startOf returns where kept line i starts in the code.
func (o *openCode) startOf(i int) int {
	if i == 0 {
		return 0
	}
	return o.lines[i].start
}

// agrees reports whether lines lexed from kept line from on give the kept
// lines after it as they were.
func (o *openCode) agrees(from int, lexed []codeLexed) bool {
	kept := o.lines[from:]
	if len(lexed) < len(kept) {
		return false
	}
	for i, k := range kept {
		if !sameTokens(k.toks, lexed[i].toks) {
			return false
		}
	}
	return true
}

// lexLines lexes code, which starts at offset start of its block, into
// lines. It returns nil if the code cannot be read, or is empty.
func (h *highlighter) lexLines(code string, start int, lang string) []codeLexed {
	lexer := h.lexer(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := lexer.Tokenise(nil, code)
	if err != nil {
		return nil
	}
	var lines []codeLexed
	for _, line := range chroma.SplitTokensIntoLines(it.Tokens()) {
		l := codeLexed{start: start}
		col := 0
		for _, tok := range line {
			start += len(tok.Value)
			v := strings.TrimSuffix(tok.Value, "\n")
			if v == "" {
				continue
			}
			l.err = l.err || tok.Type == chroma.Error
			if n := len(l.toks); n > 0 && l.toks[n-1].Type == tok.Type {
				l.toks[n-1].Value += v
			} else {
				l.toks = append(l.toks, chroma.Token{Type: tok.Type, Value: v})
			}
			var text string
			text, col = codeText(v, col)
			l.row = append(l.row, piece{text: text, st: h.tokenStyle(tok.Type)})
		}
		lines = append(lines, l)
	}
	return lines
}

// sameTokens reports whether two lines of tokens are the same.
func sameTokens(a, b []chroma.Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tokensBlank reports whether a line of tokens shows nothing.
func tokensBlank(toks []chroma.Token) bool {
	for _, t := range toks {
		if strings.Trim(t.Value, " \t\r") != "" {
			return false
		}
	}
	return true
}
