package mdstream

import (
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// mdWidthsKept bounds how many glamour renderers (one per wrap width) a
// Renderer keeps: a terminal being resized goes through many widths.
const mdWidthsKept = 4

// mdChromaFormatter is the chroma formatter glamour highlights code with.
const mdChromaFormatter = "terminal16m"

// Renderer renders markdown for the terminal in one glamour style. It
// owns the glamour renderers, one per wrap width, each created on first use
// (never at start-up) and kept for the last few widths used. One
// Renderer is meant to be shared by every message of a session; it
// is safe for concurrent use.
type Renderer struct {
	style string

	mu      sync.Mutex
	widths  []mdWidthRenderer // most recently used first
	frame   *mdFrame          // measured on the first render
	parser  goldmark.Markdown // block parser used to check block boundaries
	renders int               // glamour renders so far, for tests
}

// mdWidthRenderer is the glamour renderer for one wrap width.
type mdWidthRenderer struct {
	width int
	tr    *glamour.TermRenderer
}

// mdFrame counts the blank lines glamour's document style puts before and
// after every document: they are not part of any block.
type mdFrame struct{ lead, trail int }

// mdChunk is one rendered piece of a markdown text, post-processed: trailing
// padding trimmed from every line, blank lines at both ends removed and
// counted in lead and trail (not counting the document's own frame). trail
// is -1 when glamour left the last line without its newline (a block quote
// ending in a code block does): in a whole document the next block's first
// newline ends that line instead of leaving a blank one. A chunk that shows
// nothing has no lines and counts its blank lines in lead.
type mdChunk struct {
	lines       []string
	lead, trail int
}

// NewRenderer returns a renderer in the given glamour style: "dark",
// "light", or "notty" (no colours or attributes, for NO_COLOR and dumb
// terminals). An unknown style falls back to "notty". Nothing is created
// until the first render.
func NewRenderer(style string) *Renderer {
	if _, ok := styles.DefaultStyles[style]; !ok {
		style = styles.NoTTYStyle
	}
	return &Renderer{style: style}
}

// Renders counts the glamour renders so far, for tests and benchmarks.
func (r *Renderer) Renders() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.renders
}

// Style returns the glamour style the renderer uses.
func (r *Renderer) Style() string { return r.style }

// render renders src as a whole markdown document wrapped at width and
// post-processes it. If glamour fails, the source lines are shown as they
// are, so that a message is never lost.
func (r *Renderer) render(src string, width int) mdChunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	tr, err := r.termRenderer(width)
	if err == nil && r.frame == nil {
		r.frame, err = mdMeasureFrame(tr)
	}
	var out string
	if err == nil {
		r.renders++
		out, err = tr.Render(src)
	}
	if err != nil {
		return mdChunk{lines: strings.Split(strings.TrimRight(src, "\n"), "\n")}
	}
	c := mdChunkOf(out)
	if len(c.lines) == 0 { // all blank, as an empty code block: lead counts them all
		c.lead -= r.frame.trail
	}
	c.lead = max(c.lead-r.frame.lead, 0)
	c.trail -= r.frame.trail // -1 if the block's last line has no newline
	return c
}

// termRenderer returns the glamour renderer for width, creating it if needed
// and dropping the least recently used one beyond mdWidthsKept.
func (r *Renderer) termRenderer(width int) (*glamour.TermRenderer, error) {
	for i, w := range r.widths {
		if w.width == width {
			copy(r.widths[1:i+1], r.widths[:i])
			r.widths[0] = w
			return w.tr, nil
		}
	}
	tr, err := glamour.NewTermRenderer(
		glamour.WithStandardStyle(r.style),
		glamour.WithWordWrap(width),
		// True colour makes code highlighting deterministic: chroma's
		// 256-colour formatter breaks ties between equally close palette
		// entries in map order, so the same code could change colour from
		// one render to the next. Bubble Tea downsamples for the terminal.
		glamour.WithChromaFormatter(mdChromaFormatter),
	)
	if err != nil {
		return nil, err
	}
	if len(r.widths) == mdWidthsKept {
		r.widths = r.widths[:mdWidthsKept-1]
	}
	r.widths = append([]mdWidthRenderer{{width, tr}}, r.widths...)
	return tr, nil
}

// mdMeasureFrame renders a one-word paragraph, which has no blank lines of its
// own, to learn how many blank lines the document style adds around it.
func mdMeasureFrame(tr *glamour.TermRenderer) (*mdFrame, error) {
	out, err := tr.Render("x")
	if err != nil {
		return nil, err
	}
	c := mdChunkOf(out)
	return &mdFrame{lead: c.lead, trail: c.trail}, nil
}

// mdChunkOf post-processes one glamour output: it trims every line and moves
// the blank lines at both ends into the lead and trail counts. A chunk that
// shows nothing has no lines and counts all its blank lines as lead.
func mdChunkOf(out string) mdChunk {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	first, last := -1, -1
	for i, l := range lines {
		t, blank := trimPadding(l)
		lines[i] = t
		if !blank {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return mdChunk{lead: len(lines)}
	}
	return mdChunk{lines: lines[first : last+1], lead: first, trail: len(lines) - 1 - last}
}

// topLevelBlocks parses src as markdown the way glamour does and returns its
// top-level blocks' kinds, in order. The splitter uses it to confirm that a
// line really starts a new top-level block before it finishes the blocks
// above that line.
func (r *Renderer) topLevelBlocks(src string) []ast.NodeKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.parser == nil {
		r.parser = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList))
	}
	doc := r.parser.Parser().Parse(text.NewReader([]byte(src)))
	var kinds []ast.NodeKind
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		kinds = append(kinds, n.Kind())
	}
	return kinds
}
