package ui

import (
	"lathe/prompts/human"
	"strings"

	"charm.land/bubbles/v2/spinner"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/tools"
)

const (
	foldedDiffLines   = 12  // diff lines a folded card shows
	foldedOutputLines = 4   // output lines a folded failed card shows
	maxCardLines      = 400 // lines an expanded card shows at most
)

// spinnerFrames animate running calls.
var spinnerFrames = spinner.MiniDot.Frames

// toolCard is one tool call: a spinner while it runs, then its outcome,
// with the diff of a write or edit and, on demand, the output.
type toolCard struct {
	start    orchestrator.ToolStarted
	end      *orchestrator.ToolFinished
	waiting  bool   // its approval is being asked
	denial   string // the reason the user gave for denying it
	progress string // what a running call last said of how far it got
	frame    int
	expanded bool
	r        render
}

func (c *toolCard) running() bool { return c.end == nil }

// tick advances the spinner to frame; it reports whether the card shows
// something new, and must be rendered again. A card waiting for approval
// shows no spinner.
func (c *toolCard) tick(frame int) bool {
	if !c.running() || c.waiting || c.frame == frame {
		return false
	}
	c.frame = frame
	c.r.invalidate()
	return true
}

func (c *toolCard) finish(e orchestrator.ToolFinished) {
	c.end, c.waiting = &e, false
	c.r.invalidate()
}

// setProgress shows how far the running call got.
func (c *toolCard) setProgress(text string) {
	c.progress = human.Line(text, 80)
	c.r.invalidate()
}

func (c *toolCard) setWaiting(w bool) {
	c.waiting = w
	c.r.invalidate()
}

func (c *toolCard) toggle() {
	c.expanded = !c.expanded
	c.r.invalidate()
}

func (c *toolCard) lines(width int, st *theme) []string {
	if l, ok := c.r.get(width); ok {
		return l
	}
	out := append([]string{c.header(width, st)}, c.hookLines(width, st)...)
	out = append(out, c.body(width, st)...)
	return c.r.set(width, append(out, ""))
}

// shortSubject is how wide the subject of a transition's card may be:
// its whole text (a plan's summary, a task's goal) is shown below it.
const shortSubject = 40

// header is the card's first line: mark, tool, subject, status. The
// subject gives way to the status, which is never cut while the width
// holds the rest.
func (c *toolCard) header(width int, st *theme) string {
	mark, meta := c.status(st)
	head := indent + mark + " " + st.toolName.Render(c.start.Name)
	tail := ""
	if meta != "" {
		tail = st.meta.Render(" · " + meta)
	}
	room := width - ansi.StringWidth(head) - ansi.StringWidth(tail) - 1
	if c.start.Kind == tools.KindTransition {
		room = min(room, shortSubject)
	}
	if subject := human.Line(c.start.Subject, max(width, 1)); subject != "" && room >= 4 {
		head += " " + st.subject.Render(ansi.Truncate(subject, room, "…"))
	}
	return ansi.Truncate(head+tail, width, "…")
}

// subjectCut reports whether the header at width cuts the subject: the
// expanded card then shows it whole.
func (c *toolCard) subjectCut(width int, st *theme) bool {
	subject := human.Line(c.start.Subject, 1<<20)
	return subject != "" && !strings.Contains(ansi.Strip(c.header(width, st)), subject)
}

// whole is the subject of an expanded card whose header cut it: every
// line of it, folded to the width.
func (c *toolCard) whole(width int, st *theme) []string {
	if !c.expanded || !c.subjectCut(width, st) {
		return nil
	}
	return foldedView(strings.Split(human.Visible(c.start.Subject), "\n"), width, func(string) lipgloss.Style { return st.subject }, st)
}

// status is the card's mark and the words after its subject.
func (c *toolCard) status(st *theme) (mark, meta string) {
	switch {
	case c.waiting:
		return st.warn.Render("?"), "waiting for approval"
	case c.running() && c.progress != "":
		return st.accent.Render(spinnerFrames[c.frame%len(spinnerFrames)]), c.progress
	case c.running():
		return st.accent.Render(spinnerFrames[c.frame%len(spinnerFrames)]), "running"
	}
	e := c.end
	meta = e.Result.Summary
	if e.Outcome == orchestrator.OutcomeDenied && c.denial != "" {
		meta = "denied: " + human.Line(c.denial, 200)
	}
	if e.Duration > 0 {
		meta += " · " + human.Duration(e.Duration).String()
	}
	switch e.Outcome {
	case orchestrator.OutcomeOK:
		return st.ok.Render("✓"), meta
	case orchestrator.OutcomeFailed:
		return st.failed.Render("✗"), meta
	}
	return st.warn.Render("⊘"), meta
}

func (c *toolCard) body(width int, st *theme) []string {
	if c.waiting {
		return nil // the approval dialog shows the change
	}
	whole := c.whole(width, st)
	if c.start.Preview != "" && (c.running() || c.end.Outcome == orchestrator.OutcomeOK) {
		return append(append(whole, c.diff(width, st)...), c.problems(width, st)...)
	}
	return append(whole, c.result(width, st)...)
}

// result renders the call's output: none while it runs, a few lines of a
// failure, all of it expanded.
func (c *toolCard) result(width int, st *theme) []string {
	if c.end == nil {
		return nil
	}
	show := 0
	switch {
	case c.expanded:
		show = maxCardLines
	case c.end.Outcome == orchestrator.OutcomeFailed:
		show = foldedOutputLines
	}
	return append(c.output(width, st, show), c.problems(width, st)...)
}

// diff renders the call's diff: its first lines, each cut to the width;
// expanded, all of it, long lines folded.
func (c *toolCard) diff(width int, st *theme) []string {
	lines := diffLines(c.start.Preview)
	if c.expanded {
		shown := lines[:min(len(lines), maxCardLines)]
		out := foldedView(shown, width, func(l string) lipgloss.Style { return diffStyle(l, st) }, st)
		return append(out, c.more(len(lines)-len(shown), st)...)
	}
	out := make([]string, 0, min(len(lines), foldedDiffLines)+1)
	for _, l := range lines[:min(len(lines), foldedDiffLines)] {
		out = append(out, diffLine(l, width, st))
	}
	return append(out, c.more(len(lines)-len(out), st)...)
}

// diffLines is a unified diff's lines without its file headers.
func diffLines(preview string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(preview, "\n"), "\n") {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// diffLine renders one line of a diff, coloured by what it does.
func diffLine(l string, width int, st *theme) string {
	return indent + "  " + diffStyle(l, st).Render(ansi.Truncate(tabsToSpaces(l), width-4, "…"))
}

// diffStyle is the style of a line of a diff: what it adds, removes, or
// where a hunk starts.
func diffStyle(l string, st *theme) lipgloss.Style {
	switch {
	case strings.HasPrefix(l, "+"):
		return st.diffAdd
	case strings.HasPrefix(l, "-"):
		return st.diffDel
	case strings.HasPrefix(l, "@@"):
		return st.diffHunk
	}
	return st.dim
}

// output renders up to show lines of the call's result.
func (c *toolCard) output(width int, st *theme, show int) []string {
	if show == 0 {
		return nil
	}
	lines := strings.Split(strings.TrimRight(c.end.Result.Content, "\n"), "\n")
	if len(lines) > 1 && lines[0] == c.end.Result.Summary {
		lines = lines[1:] // the header says it already
	}
	shown := lines[:min(len(lines), show)]
	if c.expanded {
		out := foldedView(shown, width, func(string) lipgloss.Style { return st.output }, st)
		return append(out, c.more(len(lines)-len(shown), st)...)
	}
	out := make([]string, 0, len(shown)+1)
	for _, l := range shown {
		out = append(out, indent+"  "+st.output.Render(ansi.Truncate(tabsToSpaces(l), width-4, "…")))
	}
	return append(out, c.more(len(lines)-len(out), st)...)
}

func (c *toolCard) more(hidden int, st *theme) []string {
	switch {
	case hidden <= 0:
		return nil
	case c.expanded:
		return []string{indent + "  " + st.meta.Render("… "+human.Plural(hidden, "more line")+" not shown")}
	}
	return []string{indent + "  " + st.meta.Render("… "+human.Plural(hidden, "more line")+" (ctrl+o to expand)")}
}

func tabsToSpaces(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

func (c *toolCard) invalidate() { c.r.invalidate() }
