// Package markdown renders markdown as it streams in: a message is split
// into top-level blocks as its text arrives, finished blocks are rendered
// once and cached, and only the open tail is rendered again, so the cost of
// a token does not grow with the message.
package markdown

import "strings"

// Doc is one streamed markdown message rendered incrementally. The text
// arrives in pieces (Append) and is split into top-level blocks as it comes;
// a block is finished once a later block has started and nothing can change
// it any more. Finished blocks are rendered once per width and cached; only
// the open tail after them is rendered again, at most once per Lines call and
// only if it changed. The lines equal, line for line, the render of the
// whole text: blocks are laid out on their own, one blank line between two,
// so a block rendered alone gives the lines it has in the whole. One
// exception while the text streams: a code block open at the end is lexed
// again from its last lines only, and a construct whose end has not come
// yet (a C comment, a heredoc) can leave lines above them coloured as they
// were before it came (codestream.go); once finished, the block is lexed
// whole.
//
// Once a link reference definition ("[x]: https://...") appears, which may
// serve links in any block, the whole text becomes the tail: correctness
// costs caching for that message.
//
// A Doc is not safe for concurrent use: the TUI calls it from Update and
// View, which Bubble Tea runs on one goroutine.
type Doc struct {
	r     *Renderer
	text  strings.Builder
	split mdSplitter

	blocks      []mdBlock // finished blocks, in order
	tail        mdBlock   // the text after the last finished block
	finished    bool      // Finish made the tail a block and nothing came after
	finishBlock bool      // the last block was made by Finish

	width     int      // wrap width of out
	out       []string // lines of blocks[:shown], then of the tail
	shown     int      // blocks whose lines are in out
	prefix    int      // len(out) taken by blocks[:shown]
	tailShown bool     // out ends with the tail as rendered now

	foldCode bool // code lines longer than their block are folded, not cut
}

// mdBlock is one finished block, or the tail, and its render.
type mdBlock struct {
	end   int // offset just past the block in the text; it starts where the previous one ends
	width int // wrap width chunk was rendered at, 0 if it must be rendered
	chunk mdChunk
}

// NewDoc returns an empty message rendered with r, which must not be
// nil. Nothing is rendered until Lines.
func NewDoc(r *Renderer) *Doc {
	m := &Doc{r: r}
	m.split.kinds = r.topLevelBlocks
	return m
}

// Append adds streamed text. It never renders: it reads the lines s
// completes, finishing blocks whose end they reveal (rarely parsing the open
// block to confirm a boundary), and marks the tail as changed. Appending
// after Finish takes the streaming up again.
func (m *Doc) Append(s string) {
	if s == "" {
		return
	}
	if m.finished {
		m.unfinish()
	}
	m.text.WriteString(s)
	for _, end := range m.split.scan(m.text.String()) {
		m.blocks = append(m.blocks, mdBlock{end: end})
	}
	if m.split.refs && len(m.blocks) > 0 {
		m.blocks = m.blocks[:0]
		m.resetJoin()
	}
	m.tail.width = 0
}

// Finish marks the text complete: the tail becomes a finished block (an
// unclosed code fence stays a code block running to the end, as the
// parser reads it). If the tail is already rendered, that render is kept,
// unless it has a code block highlighted as it streamed.
func (m *Doc) Finish() {
	if m.finished {
		return
	}
	m.finished = true
	m.finishBlock = m.tailStart() < m.text.Len()
	if m.finishBlock {
		width := m.tail.width
		if m.tail.chunk.open { // its code is lexed whole once finished
			width = 0
		}
		m.blocks = append(m.blocks, mdBlock{end: m.text.Len(), width: width, chunk: m.tail.chunk})
		m.tail = mdBlock{}
		m.tailShown = false
	}
}

// unfinish undoes Finish before more text is appended.
func (m *Doc) unfinish() {
	m.finished = false
	if m.finishBlock {
		m.finishBlock = false
		m.blocks = m.blocks[:len(m.blocks)-1]
		m.resetJoin()
	}
}

// Style is the name of the style the doc is rendered in.
func (m *Doc) Style() string { return m.r.Style() }

// Text returns the markdown appended so far.
func (m *Doc) Text() string { return m.text.String() }

// Lines returns the rendered lines at the given terminal width, each at most
// width cells wide with no trailing padding. It renders only what changed:
// finished blocks not yet rendered at this width, then the tail if it changed
// since the last call. With nothing changed it returns the cached slice at
// once. Only the last width's render is kept: a new width renders every
// block again, so callers should keep to one width between resizes. The
// slice belongs to m: callers must not modify its elements, and
// it is only valid until the next call to a method of m (appending to it is
// safe: its capacity ends at its length, so append copies). A width below 1
// (no layout yet) gives nil.
func (m *Doc) Lines(width int) []string {
	if width < 1 {
		return nil
	}
	if width != m.width {
		m.width = width
		m.resetJoin()
	}
	for ; m.shown < len(m.blocks); m.shown++ {
		b := &m.blocks[m.shown]
		if b.width != width {
			b.chunk, b.width = m.r.render(m.blockText(m.shown), width, m.foldCode), width
		}
		m.out = appendMDChunk(m.out[:m.prefix], b.chunk)
		m.prefix = len(m.out)
		m.tailShown = false
	}
	if m.tailShown && (m.tail.width == width || m.tailStart() == m.text.Len()) {
		return m.out[:len(m.out):len(m.out)]
	}
	m.out = m.out[:m.prefix]
	if start := m.tailStart(); start < m.text.Len() {
		if m.tail.width != width {
			m.tail.chunk, m.tail.width = m.r.renderOpen(m.text.String()[start:], width, m.foldCode), width
		}
		m.out = appendMDChunk(m.out, m.tail.chunk)
	}
	m.tailShown = true
	return m.out[:len(m.out):len(m.out)]
}

// FoldCode has code lines longer than their block folded into rows (fold
// true) or cut (false, the default); the next Lines renders again.
func (m *Doc) FoldCode(fold bool) {
	if fold == m.foldCode {
		return
	}
	m.foldCode = fold
	for i := range m.blocks {
		m.blocks[i].width = 0
	}
	m.tail.width = 0
	m.resetJoin()
}

// CodeCut reports whether the last Lines had a code line longer than its
// block: cut, or folded.
func (m *Doc) CodeCut() bool {
	for _, b := range m.blocks[:m.shown] {
		if b.chunk.cut {
			return true
		}
	}
	return m.tailShown && m.tailStart() < m.text.Len() && m.tail.chunk.cut
}

// tailStart returns the offset where the tail starts.
func (m *Doc) tailStart() int {
	if n := len(m.blocks); n > 0 {
		return m.blocks[n-1].end
	}
	return 0
}

// blockText returns the text of the i-th finished block.
func (m *Doc) blockText(i int) string {
	start := 0
	if i > 0 {
		start = m.blocks[i-1].end
	}
	return m.text.String()[start:m.blocks[i].end]
}

// resetJoin empties the joined lines so that Lines joins every block again
// (rendering only those whose width changed).
func (m *Doc) resetJoin() {
	m.out = m.out[:0]
	m.shown, m.prefix = 0, 0
	m.tailShown = false
}

// appendMDChunk appends the lines of c to lines, after a blank line if
// both have some: the one blank line the whole render puts between two
// blocks. A chunk that shows nothing adds nothing.
func appendMDChunk(lines []string, c mdChunk) []string {
	if len(c.lines) == 0 {
		return lines
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	return append(lines, c.lines...)
}
