package ui

import (
	"fmt"
	"strings"
	"time"

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
// not render; the next frame does, and only the open tail.
type answerItem struct {
	md *Markdown
	r  render
}

func (a *answerItem) lines(width int, _ *theme) []string {
	if l, ok := a.r.get(width); ok {
		return l
	}
	if a.md.Text() == "" {
		return a.r.set(width, nil) // all of it was tool calls written as text
	}
	return a.r.set(width, append(a.md.Lines(width), ""))
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
			out = append(out, wrap(l, width, indent, indent, st.notice)...)
		}
	}
	return n.r.set(width, append(out, ""))
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
		body := wrap(text, width, indent+"  ", indent+"  ", st.thinking)
		out = append(out, body[max(0, len(body)-thinkingLines):]...)
	case t.expanded:
		out = append(out, indent+st.thinking.Render("▾ "+t.summary()))
		out = append(out, wrap(text, width, indent+"  ", indent+"  ", st.thinking)...)
	default:
		out = append(out, indent+st.thinking.Render("▸ "+t.summary()))
	}
	return t.r.set(width, append(out, ""))
}

func (t *thinkingItem) summary() string {
	words := len(strings.Fields(t.text.String()))
	if t.took == 0 {
		return fmt.Sprintf("Thought (%d words)", words) // restored: the time was not kept
	}
	return fmt.Sprintf("Thought for %s (%d words)", t.took.Round(100*time.Millisecond), words)
}

func (u *userItem) invalidate()     { u.r.invalidate() }
func (a *answerItem) invalidate()   { a.r.invalidate() }
func (n *noticeItem) invalidate()   { n.r.invalidate() }
func (t *thinkingItem) invalidate() { t.r.invalidate() }
