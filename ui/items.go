package ui

import (
	"fmt"
	"lathe/prompts/human"
	"lathe/ui/markdown"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
)

// indent is the left margin of everything but prompts.
const indent = "  "

// wrap wraps text to width and returns its lines, each with prefix (the
// first line with first instead).
func wrap(text string, width int, first, prefix string, style lipgloss.Style) []string {
	w := max(width-lipgloss.Width(prefix), 8)
	var out []string
	for i, l := range strings.Split(lipgloss.Wrap(text, w, ""), "\n") {
		p := prefix
		if i == 0 {
			p = first
		}
		out = append(out, p+style.Render(l))
	}
	return out
}

// userItem is a prompt the user sent.
type userItem struct {
	text string
	r    render
}

func (u *userItem) lines(width int, st *theme) []string {
	if l, ok := u.r.get(width); ok {
		return l
	}
	out := wrap(u.text, width, st.userMark.Render("›")+" ", "  ", st.user)
	return u.r.set(width, append(out, ""))
}

// answerItem is assistant text, streamed as markdown. Appending text does
// not render it: lines does, for the frame. A restored answer keeps its
// text until it is first shown: parsing thousands of answers of a long
// session costs nothing until they scroll into view.
type answerItem struct {
	md       *markdown.Doc
	pending  string             // a restored answer's text, until doc
	renderer *markdown.Renderer // for pending
	expanded bool               // its code lines are folded, not cut
	cut      bool               // a line of its code was cut when its document was shed
	r        render
}

// doc is the answer's document, made from its text on first use.
func (a *answerItem) doc() *markdown.Doc {
	if a.md == nil {
		a.md = markdown.NewDoc(a.renderer)
		a.md.Append(a.pending)
		a.md.Finish()
		a.md.FoldCode(a.expanded)
		a.pending = ""
	}
	return a.md
}

// folds reports whether the answer can be expanded: a line of its code is
// cut at the width it was last shown at, or folded.
func (a *answerItem) folds() bool {
	if a.md == nil {
		return a.cut
	}
	return a.md.CodeCut()
}

// shed drops the document, its text kept to make it again; whether its
// code was cut is kept for folds.
func (a *answerItem) shed(st *theme) {
	if a.md == nil {
		return
	}
	a.cut = a.md.CodeCut()
	// A copy: the document's text is a builder's, with room to grow.
	a.pending, a.md, a.renderer = strings.Clone(a.md.Text()), nil, st.renderer()
}

// toggle folds its long code lines into rows, or cuts them again.
func (a *answerItem) toggle() {
	a.expanded = !a.expanded
	a.doc().FoldCode(a.expanded)
	a.r.invalidate()
}

func (a *answerItem) lines(width int, _ *theme) []string {
	if l, ok := a.r.get(width); ok {
		return l
	}
	md := a.doc()
	if md.Text() == "" {
		return a.r.set(width, nil) // all of it was tool calls written as text
	}
	return a.r.set(width, append(md.Lines(width), ""))
}

// noticeKind says how a notice looks.
type noticeKind int

const (
	noticeInfo noticeKind = iota
	noticeWarn
	noticeError
)

// noticeItem is something lathe says, not the model: help, errors,
// warnings, "interrupted".
type noticeItem struct {
	kind  noticeKind
	title string
	text  string
	r     render
}

func (n *noticeItem) lines(width int, st *theme) []string {
	if l, ok := n.r.get(width); ok {
		return l
	}
	var out []string
	switch n.kind {
	case noticeError:
		title := n.title
		if title == "" {
			title = "Error"
		}
		out = append(out, indent+st.errorTitle.Render("✗ "+title))
		out = append(out, wrap(n.text, width, indent+"  ", indent+"  ", st.errorText)...)
	case noticeWarn:
		out = wrap(n.text, width, indent+st.warn.Render("! "), indent+"  ", st.warn)
	default:
		if n.title != "" {
			out = append(out, indent+st.statusKey.Render(n.title))
		}
		for _, l := range strings.Split(n.text, "\n") {
			out = append(out, wrap(l, width, indent, indent+hanging(l), st.notice)...)
		}
	}
	return n.r.set(width, append(out, ""))
}

// hanging is the indent of a line's continuations: a line that starts
// with a mark ("▸ ", "⊘ ") wraps under its text.
func hanging(line string) string {
	r, size := utf8.DecodeRuneInString(line)
	if size == 0 || unicode.IsLetter(r) || unicode.IsDigit(r) || !strings.HasPrefix(line[size:], " ") {
		return ""
	}
	return strings.Repeat(" ", lipgloss.Width(string(r))+1)
}

// thinkingLines is how many lines of reasoning show while it streams.
const thinkingLines = 3

// thinkingItem is the model's reasoning: dimmed, its last lines while it
// streams, one line once it is done, all of it when expanded.
type thinkingItem struct {
	text     strings.Builder
	started  time.Time
	took     time.Duration
	done     bool
	expanded bool
	r        render
}

// add appends reasoning; it shows from the next frame.
func (t *thinkingItem) add(s string) { t.text.WriteString(s) }

func (t *thinkingItem) finish(now time.Time) {
	if !t.done {
		t.done, t.took = true, now.Sub(t.started)
		t.r.invalidate()
	}
}

func (t *thinkingItem) toggle() {
	t.expanded = !t.expanded
	t.r.invalidate()
}

func (t *thinkingItem) lines(width int, st *theme) []string {
	if l, ok := t.r.get(width); ok {
		return l
	}
	text := strings.TrimSpace(t.text.String())
	var out []string
	switch {
	case !t.done:
		out = append(out, indent+st.thinking.Render("✻ Thinking…"))
		out = append(out, wrapLast(text, thinkingLines, width, indent+"  ", st.thinking)...)
	case t.expanded:
		out = append(out, indent+st.thinking.Render("▾ "+t.summary()))
		out = append(out, wrap(text, width, indent+"  ", indent+"  ", st.thinking)...)
	default:
		out = append(out, indent+st.thinking.Render("▸ "+t.summary()))
	}
	return t.r.set(width, append(out, ""))
}

// wrapLast returns the last n lines of wrap(text, ...), each with prefix,
// wrapping only the end of text, so that a frame costs the same however
// long the text grows. The end starts at a line break, where the whole
// text's wrap starts a line too, or, if none is near, at a word break 4n
// lines' worth back: greedy wrapping started there finds the whole text's
// line breaks again within a line or two (text of words of one length
// could keep them shifted, which no prose does).
func wrapLast(text string, n, width int, prefix string, style lipgloss.Style) []string {
	for budget := 4 * n * max(width, 8); ; budget *= 4 {
		from := tailStart(text, budget)
		lines := wrap(text[from:], width, prefix, prefix, style)
		if from == 0 || len(lines) >= 2*n { // short lines, blank ones: take more
			return lines[max(0, len(lines)-n):]
		}
	}
}

// tailStart returns where the last budget bytes of text start, moved back
// to the start of a line within budget bytes, or else to the start of a
// word; 0 if the text is shorter or has no such start.
func tailStart(text string, budget int) int {
	from := len(text) - budget
	if from <= 0 {
		return 0
	}
	if i := strings.LastIndexByte(text[:from], '\n'); i >= 0 && from-i <= budget {
		return i + 1
	}
	return strings.LastIndexByte(text[:from], ' ') + 1
}

func (t *thinkingItem) summary() string {
	words := len(strings.Fields(t.text.String()))
	if t.took == 0 {
		return fmt.Sprintf("Thought (%s)", human.Plural(words, "word")) // restored: the time was not kept
	}
	return fmt.Sprintf("Thought for %s (%s)", t.took.Round(100*time.Millisecond), human.Plural(words, "word"))
}

func (u *userItem) invalidate()     { u.r.invalidate() }
func (a *answerItem) invalidate()   { a.r.invalidate() }
func (n *noticeItem) invalidate()   { n.r.invalidate() }
func (t *thinkingItem) invalidate() { t.r.invalidate() }

// textHeight guesses the lines text takes wrapped at width, for items not
// rendered yet.
func textHeight(text string, width int) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		n += len(l)/max(width-4, 1) + 1
	}
	return n
}

func (u *userItem) estimate(width int) int { return textHeight(u.text, width) + 1 }
func (a *answerItem) estimate(width int) int {
	if a.md == nil {
		return textHeight(a.pending, width) + 1
	}
	return textHeight(a.md.Text(), width) + 1
}
func (n *noticeItem) estimate(width int) int { return textHeight(n.title+"\n"+n.text, width) + 1 }
