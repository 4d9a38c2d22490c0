package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// This file splits a streamed markdown text into top-level blocks.
//
// The splitter reads each complete line once, keeping a little state (the
// kind of the open block, an open code fence, blank lines seen), and from it
// proposes candidate boundaries: a line that probably starts a new top-level
// block. A candidate is only accepted after goldmark, the parser the
// renderer reads with, confirms it on the open block's text: parsed with the
// candidate line, the open block must gain exactly one top-level block. The
// line heuristics keep parsing rare; the parse keeps them honest, so that a
// misjudged fence or a badly indented list can cost caching but never change
// the output. When the first character of an incomplete line is enough to
// tell (a letter after a blank line, say), the block ends before the line
// is complete.
//
// A boundary is also refused after a definition list: goldmark adds a later
// term and definition to it, even after a blank line. Once a link
// reference definition appears (it may serve links anywhere in the text)
// no block is ever finished again: see Doc.

// mdState is the kind of the open block, as far as line heuristics can tell.
type mdState int

const (
	mdNone     mdState = iota // no block open: only blank lines so far
	mdPara                    // paragraph-like (also tables, quotes, HTML): ends at a blank line
	mdList                    // list: goes on past blank lines while lines are indented or items
	mdIndented                // indented code: goes on past blank lines while lines are indented
	mdFenced                  // a fenced code block that opened the block
)

// mdFence is an open code fence: its character (` or ~) and length.
type mdFence struct {
	char byte
	n    int
}

// mdSplitter finds where finished top-level blocks end in a text that only
// grows at its end.
type mdSplitter struct {
	// kinds parses markdown and returns its top-level block kinds.
	kinds func(src string) []ast.NodeKind

	start    int     // offset where the open block starts
	next     int     // offset of the first line not read yet
	searched int     // offset up to which the unread line has no newline
	state    mdState // kind of the open block
	blank    bool    // blank lines followed the open block's last line
	after    bool    // the last line ended a heading, a rule or a top-level fence
	fence    mdFence // open code fence, zero if none
	refs     bool    // a link reference definition was seen
	peeked   int     // start of the last incomplete line peek parsed
	found    []int   // offsets where newly finished blocks end
}

// scan reads the complete lines of text not read yet (text must extend the
// text of earlier calls) and returns the offsets where newly finished blocks
// end, in order. The returned slice is reused by the next call.
func (s *mdSplitter) scan(text string) []int {
	s.found = s.found[:0]
	for {
		i := strings.IndexByte(text[s.searched:], '\n')
		if i < 0 {
			s.searched = len(text)
			s.peek(text)
			return s.found
		}
		end := s.searched + i + 1
		s.line(text, s.next, end)
		s.next, s.searched = end, end
	}
}

// peek looks at the incomplete last line text[s.next:]. Glamour already
// reads a link reference definition there. And its first character may be
// enough to tell that the open block is finished: then the block ends now
// rather than when the line is complete, so that a long block (a code block,
// typically) is not rendered again with every token of the next line.
func (s *mdSplitter) peek(text string) {
	partial := text[s.next:]
	if s.refs || s.fence.n > 0 || partial == "" {
		return
	}
	first := strings.TrimLeft(partial, " \t")
	if first != "" && strings.IndexByte("[>-+*0123456789", first[0]) >= 0 {
		s.refs = mdRefDef(strings.TrimRight(first, " \t"))
	}
	if s.refs || s.peeked == s.next || !s.startsBlock(partial[0]) {
		return
	}
	s.peeked = s.next
	if s.confirm(text, s.next, len(text)) {
		s.finish(s.next)
		s.state = mdNone
	}
}

// startsBlock reports whether a line starting with c (at column 0), read now,
// surely starts a new block whatever follows it on the line: it comes after
// blank lines or a finished heading, rule or fence, and c can neither
// continue the open block (as an indented line or a list item would) nor
// join it (as a definition, HTML or a link definition would).
func (s *mdSplitter) startsBlock(c byte) bool {
	if !s.blank && !s.after || s.state == mdNone {
		return false
	}
	switch {
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		return true
	case c == '#' || c == '`' || c == '~' || c == '>':
		return true
	}
	return '0' <= c && c <= '9' && s.state != mdList
}

// finish ends the open block at offset end, where the next one starts.
func (s *mdSplitter) finish(end int) {
	s.found = append(s.found, end)
	s.start = end
}

// line reads the line text[from:to] (to is just past its newline).
func (s *mdSplitter) line(text string, from, to int) {
	ln := strings.TrimSuffix(text[from:to-1], "\r")
	if s.fence.n > 0 {
		if s.fence.closedBy(ln) {
			s.fence = mdFence{}
			s.after = s.state == mdFenced
		}
		return
	}
	ind, rest := mdIndent(ln)
	if rest == "" {
		s.blank = s.state != mdNone
		return
	}
	if mdRefDef(rest) {
		s.refs = true
	}
	switch {
	case s.state == mdNone:
		s.open(ind, rest)
	case s.candidate(ind, rest) && s.confirm(text, from, to):
		s.finish(from)
		s.open(ind, rest)
	case s.blank && s.state != mdList && s.state != mdIndented:
		s.open(ind, rest)
	default:
		s.extend(ind, rest)
	}
}

// candidate reports whether a non-blank line may start a new top-level block.
func (s *mdSplitter) candidate(ind int, rest string) bool {
	switch {
	case s.refs:
		return false
	case s.after:
		return true
	case s.blank && s.state == mdList:
		return ind == 0 && !mdListItem(rest)
	case s.blank && s.state == mdIndented:
		return ind < 4
	case s.blank:
		return true
	case s.state == mdList:
		return ind == 0 && (mdATX(rest) || mdFenceOpens(rest))
	}
	return s.state == mdPara && ind < 4 && (mdATX(rest) || mdFenceOpens(rest))
}

// confirm asks the parser whether the line text[from:to] starts a new
// top-level block after the open block, so that the open block is finished.
func (s *mdSplitter) confirm(text string, from, to int) bool {
	before := s.kinds(text[s.start:from])
	with := s.kinds(text[s.start:to])
	if len(with) != len(before)+1 {
		return false
	}
	return len(before) == 0 || before[len(before)-1] != east.KindDefinitionList
}

// open reads the first line of a block.
func (s *mdSplitter) open(ind int, rest string) {
	s.blank, s.after = false, false
	f, fence := mdOpenFence(rest)
	switch {
	case ind >= 4:
		s.state = mdIndented
	case fence:
		s.state, s.fence = mdFenced, f
	case mdATX(rest) || mdBreak(rest):
		s.state, s.after = mdPara, true
	case mdListItem(rest):
		s.state = mdList
	default:
		s.state = mdPara
	}
}

// extend reads a line that continues the open block.
func (s *mdSplitter) extend(ind int, rest string) {
	s.blank, s.after = false, false
	if s.state == mdIndented && ind >= 4 {
		return
	}
	if f, ok := mdOpenFence(rest); ok && (ind < 4 || s.state == mdList) {
		s.fence = f
		return
	}
	if s.state != mdList && ind < 4 && mdListItem(rest) {
		s.state = mdList
	} else if s.state == mdIndented || s.state == mdFenced {
		s.state = mdPara
	}
}

// closedBy reports whether ln closes the fence. Any indentation is accepted:
// a wrong guess only proposes a boundary the parser then refuses.
func (f mdFence) closedBy(ln string) bool {
	_, rest := mdIndent(ln)
	n := 0
	for n < len(rest) && rest[n] == f.char {
		n++
	}
	return n >= f.n && strings.TrimRight(rest[n:], " \t") == ""
}

// mdOpenFence reports whether rest (a line without its indentation) opens a
// code fence: three or more backticks or tildes, and for backticks an info
// string without backticks.
func mdOpenFence(rest string) (mdFence, bool) {
	if rest == "" || rest[0] != '`' && rest[0] != '~' {
		return mdFence{}, false
	}
	c, n := rest[0], 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 || c == '`' && strings.IndexByte(rest[n:], '`') >= 0 {
		return mdFence{}, false
	}
	return mdFence{char: c, n: n}, true
}

// mdFenceOpens reports whether rest opens a code fence.
func mdFenceOpens(rest string) bool {
	_, ok := mdOpenFence(rest)
	return ok
}

// mdIndent returns the indentation of ln in columns (tabs stop every four)
// and the rest of the line after it, with trailing blanks removed.
func mdIndent(ln string) (int, string) {
	col, i := 0, 0
	for ; i < len(ln); i++ {
		switch ln[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, strings.TrimRight(ln[i:], " \t")
		}
	}
	return col, ""
}

// mdATX reports whether rest is an ATX heading: one to six '#' followed by a
// blank or the end of the line.
func mdATX(rest string) bool {
	n := 0
	for n < len(rest) && rest[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(rest) || rest[n] == ' ' || rest[n] == '\t')
}

// mdBreak reports whether rest is a thematic break: three or more '-', '*'
// or '_' (all the same) and nothing else but blanks.
func mdBreak(rest string) bool {
	c := rest[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// mdListItem reports whether rest starts a list item: a bullet (-, + or *)
// or one to nine digits and '.' or ')', then a blank or the end of the line.
func mdListItem(rest string) bool {
	n := 0
	switch {
	case rest[0] == '-' || rest[0] == '+' || rest[0] == '*':
		n = 1
	default:
		for n < len(rest) && n < 10 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 || n == len(rest) || rest[n] != '.' && rest[n] != ')' {
			return false
		}
		n++
	}
	return n == len(rest) || rest[n] == ' ' || rest[n] == '\t'
}

// mdRefDef reports whether rest may be a link reference definition
// ("[label]: destination"), looking through block quote and list markers.
// It errs towards yes: a false yes only costs caching.
func mdRefDef(rest string) bool {
	for rest != "" {
		switch {
		case rest[0] == '>':
			rest = strings.TrimLeft(rest[1:], " \t")
		case mdListItem(rest):
			i := strings.IndexAny(rest, " \t")
			if i < 0 {
				return false
			}
			rest = strings.TrimLeft(rest[i:], " \t")
		default:
			return rest[0] == '[' && strings.Contains(rest, "]:")
		}
	}
	return false
}
