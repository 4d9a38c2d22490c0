package markdown

import (
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Renderer renders markdown for the terminal in one style. It parses with
// goldmark (CommonMark with GitHub's tables, strikethrough, task lists and
// autolinks, and definition lists) and lays the blocks out itself
// (layout.go). glamour, which rendered lathe's markdown before, wraps the
// text each container has composed as a whole: wrapped list items lose
// their hanging indent, long code lines wrap back to the left of their
// block, and tables always take the full width; no option or style changes
// that. One Renderer is meant to be shared by every message of a session;
// it is safe for concurrent use. Nothing is created until the first render.
type Renderer struct {
	th *theme

	mu      sync.Mutex
	md      goldmark.Markdown // parser, created on first use
	code    *highlighter      // code colours, created with the first code block
	codeErr bool              // the code colours could not be built: code stays plain
	renders int               // renders so far, for tests
}

// NewRenderer returns a renderer in the given style: "dark", "light", or
// "notty" (no escape sequences at all, for NO_COLOR and dumb terminals).
// An unknown style falls back to "notty".
func NewRenderer(styleName string) *Renderer {
	th, ok := themeFor(styleName)
	if !ok {
		th, _ = themeFor(StylePlain)
	}
	return &Renderer{th: th}
}

// Renders counts the renders so far, for tests and benchmarks.
func (r *Renderer) Renders() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.renders
}

// Style returns the name of the renderer's style.
func (r *Renderer) Style() string { return r.th.name }

// render renders src as a whole markdown document at width: its lines, no
// blank line at either end, none wider than width, none ending in blanks.
// Code lines longer than their block are cut, or folded with foldCode.
func (r *Renderer) render(src string, width int, foldCode bool) mdChunk {
	return r.renderDoc(src, width, foldCode, false)
}

// renderOpen renders src as render does, src being the end of a text still
// streaming in: a code block open at its end is highlighted from the lines
// the last one kept (codestream.go), and the chunk is marked open.
func (r *Renderer) renderOpen(src string, width int, foldCode bool) mdChunk {
	return r.renderDoc(src, width, foldCode, true)
}

func (r *Renderer) renderDoc(src string, width int, foldCode, open bool) mdChunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.renders++
	b := []byte(src)
	doc := r.parser().Parser().Parse(text.NewReader(b))
	l := layout{th: r.th, src: b, code: r.highlighter(), foldCode: foldCode, open: open}
	return mdChunk{lines: l.document(doc, width), cut: l.codeCut, open: l.openCode}
}

// highlighter returns the code highlighter, nil for a theme without code
// colours. It is called with r.mu held.
func (r *Renderer) highlighter() *highlighter {
	if r.code != nil || r.codeErr || r.th.chroma == nil {
		return r.code
	}
	h, err := newHighlighter(r.th.chroma)
	if err != nil {
		r.codeErr = true // the entries are constants: a test catches this
		return nil
	}
	r.code = h
	return h
}

// parser returns the markdown parser. It is called with r.mu held.
func (r *Renderer) parser() goldmark.Markdown {
	if r.md == nil {
		r.md = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList))
	}
	return r.md
}

// mdChunk is one rendered piece of a markdown text: the lines of its
// blocks, without blank lines at either end. A chunk that shows nothing has
// no lines.
type mdChunk struct {
	lines []string
	cut   bool // a code line is longer than its block: cut, or folded
	open  bool // a code block open at the end was highlighted from kept lines
}

// topLevelBlocks parses src as markdown the way the renderer does and
// returns its top-level blocks' kinds, in order. The splitter uses it to
// confirm that a line really starts a new top-level block before it
// finishes the blocks above that line.
func (r *Renderer) topLevelBlocks(src string) []ast.NodeKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	doc := r.parser().Parser().Parse(text.NewReader([]byte(src)))
	var kinds []ast.NodeKind
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		kinds = append(kinds, n.Kind())
	}
	return kinds
}
