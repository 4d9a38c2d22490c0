package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/session"
	"lathe/prompts/human"
)

// Undo, redo and rewind take runs back: their file changes, and their
// exchanges from what the model sees next. Each shows what it will do and
// asks first; the exchanges taken back stay in the transcript, marked.

type (
	// undoPlannedMsg carries what an undo or redo would do, and the prompt
	// of the run it takes back (or does again).
	undoPlannedMsg struct {
		plan   checkpoint.Plan
		prompt string
		err    error
	}
	// undoAppliedMsg ends an undo, a redo or a rewind.
	undoAppliedMsg struct {
		redo    bool
		runs    int    // how many runs were taken back (or done again)
		prompt  string // the (oldest) prompt taken back, or done again
		outcome checkpoint.Outcome
		err     error
	}
)

func (m *model) cmdUndo(string) tea.Cmd { return m.planUndo(false) }
func (m *model) cmdRedo(string) tea.Cmd { return m.planUndo(true) }

// planUndo works out, off the UI's goroutine, what undoing the last run
// (or doing the last undone one again) would do.
func (m *model) planUndo(redo bool) tea.Cmd {
	if m.refuseBusy() {
		return nil
	}
	ctx, s := m.ctx, m.session
	return func() tea.Msg {
		var plan checkpoint.Plan
		var err error
		if redo {
			plan, err = s.PlanRedo(ctx)
		} else {
			plan, err = s.PlanUndo(ctx)
		}
		if err != nil {
			return undoPlannedMsg{err: err}
		}
		return undoPlannedMsg{plan: plan, prompt: promptOf(ctx, s, plan.Runs[0].ID)}
	}
}

// promptOf is the prompt of the run of checkpoint id, when the history
// still has it.
func promptOf(ctx context.Context, s *orchestrator.Session, id int64) string {
	turns, _ := s.Turns(ctx)
	for _, t := range turns {
		if t.Checkpoint.ID == id {
			return t.Prompt
		}
	}
	return ""
}

// undoPlannedMsg shows the plan and asks whether to carry it out.
func (m *model) undoPlanned(msg undoPlannedMsg) {
	switch {
	case errors.Is(msg.err, checkpoint.ErrNothingToUndo):
		m.notice(noticeInfo, "", "Nothing to undo.")
	case errors.Is(msg.err, session.ErrNothingToRedo):
		m.notice(noticeInfo, "", "Nothing to redo: there was no undo, or the conversation went on since.")
	case msg.err != nil:
		m.notice(noticeError, "Cannot undo", msg.err.Error())
	default:
		if msg.prompt == "" {
			msg.prompt = m.undonePrompt(msg.plan.Redo)
		}
		m.dialog = newUndoDialog(msg.plan, msg.prompt, &m.st, m.keys)
	}
}

// undonePrompt is, for a redo, the prompt of the request a redo does
// again (see redoTarget).
func (m *model) undonePrompt(redo bool) string {
	i := m.redoTarget()
	if !redo || i < 0 {
		return ""
	}
	return m.transcript.items[i].(*undoneItem).inner.(*userItem).text
}

// redoTarget is the index of the prompt a redo does again: the request
// undone last. Undoing takes back the latest request left, so the requests
// undone are the last ones, each marked from its prompt to the end (see
// markUndone): the one undone last is the first prompt of the last run
// of items marked. -1 when no prompt is marked.
func (m *model) redoTarget() int {
	items := m.transcript.items
	i := len(items) - 1
	for i >= 0 && !isUndone(items[i]) {
		i--
	}
	target := -1
	for ; i >= 0 && isUndone(items[i]); i-- {
		if _, ok := items[i].(*undoneItem).inner.(*userItem); ok {
			target = i
		}
	}
	return target
}

// isUndone reports whether it is marked undone.
func isUndone(it item) bool {
	_, ok := it.(*undoneItem)
	return ok
}

// undoDialog shows what an undo, a redo or a rewind will do to each file,
// the diffs scrollable, and asks first.
type undoDialog struct {
	dialogBase
	plan   checkpoint.Plan
	prompt string
	window scrollWindow
	apply  bool // the user said to carry it out
	force  bool // overwriting the files changed since
}

var _ dialog = (*undoDialog)(nil)

func newUndoDialog(plan checkpoint.Plan, prompt string, st *theme, keys keyMap) *undoDialog {
	return &undoDialog{dialogBase: newDialogBase(st, keys), plan: plan, prompt: prompt}
}

// Update handles a key: a choice answers, and closes the dialog.
func (d *undoDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	if !ok || d.window.key(k, d.keys, len(d.lines())) {
		return d, nil
	}
	switch {
	case key.Matches(k, d.keys.Allow):
		d.apply = true
	case d.plan.Conflicts() && key.Matches(k, d.keys.Force):
		d.apply, d.force = true, true
	case key.Matches(k, d.keys.Deny), key.Matches(k, d.keys.Interrupt):
	default:
		return d, nil
	}
	return d, d.close(d)
}

// undoAnswered carries the plan out, or says nothing was.
func (m *model) undoAnswered(d *undoDialog) tea.Cmd {
	if !d.apply {
		m.notice(noticeInfo, "", "Nothing "+d.done()+".")
		return nil
	}
	return m.applyUndo(d.plan, d.prompt, d.force)
}

// rewind reports whether the dialog takes more than one run back.
func (d *undoDialog) rewind() bool { return len(d.plan.Runs) > 1 }

func (d *undoDialog) verb() string {
	switch {
	case d.plan.Redo:
		return "redo"
	case d.rewind():
		return "rewind"
	}
	return "undo"
}

func (d *undoDialog) done() string {
	switch {
	case d.plan.Redo:
		return "redone"
	case d.rewind():
		return "rewound"
	}
	return "undone"
}

func (d *undoDialog) hint() string { return d.verb() + "?" }
func (d *undoDialog) cancel()      {}

// undoLine is a line the undo dialog lists, rendered as its kind says.
type undoLine struct {
	kind undoLineKind
	text string
}

type undoLineKind int

const (
	lineFile  undoLineKind = iota // a file and what becomes of it
	lineWarn                      // a file left alone, and why
	lineLabel                     // what the diff below it shows
	lineHead                      // a diff's names of what it compares
	lineDiff
)

// lines are what the dialog lists: each file, what becomes of it, and
// the diff; for a file changed since, the three versions as two diffs,
// each naming what it compares: what changed since lathe left it, and
// what forcing makes of it now.
func (d *undoDialog) lines() []undoLine {
	var out []undoLine
	add := func(kind undoLineKind, text string) { out = append(out, undoLine{kind, text}) }
	diff := func(s string, heads bool) {
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			switch {
			case strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
				if heads {
					add(lineHead, l)
				}
			case l != "":
				add(lineDiff, l)
			}
		}
	}
	if len(d.plan.Actions) == 0 {
		add(lineFile, "it changed no files")
	}
	left := "changed since lathe left it:"
	if d.plan.Redo {
		left = "changed since the undo left it:"
	}
	for _, a := range d.plan.Actions {
		switch {
		case a.Conflict:
			add(lineWarn, fmt.Sprintf("! %s: %s, so it is left alone (f overwrites it):", a.Path, a.Why))
			add(lineLabel, left)
			diff(a.Since, true)
			add(lineLabel, "what f would do:")
			diff(a.Diff, true)
		case a.Do == checkpoint.Refuse:
			add(lineWarn, fmt.Sprintf("! %s: %s", a.Path, a.Why))
		case a.Do == checkpoint.Keep:
			add(lineFile, a.Path+": already so")
		default:
			add(lineFile, string(a.Do)+" "+a.Path)
			diff(a.Diff, false)
		}
	}
	return out
}

func (d *undoDialog) View() string {
	st, keys, width := d.st, d.keys, d.width
	what, to := "Undo the last request", ": "
	switch {
	case d.plan.Redo:
		what = "Redo the request undone last"
	case d.rewind():
		what, to = fmt.Sprintf("Rewind, undoing the last %d requests", len(d.plan.Runs)), ", to before: "
	}
	if d.prompt != "" {
		what += to + human.Line(d.prompt, 60)
	}
	head := append([]string{d.rule()},
		wrap("? "+what+"?", width, " ", "   ", st.dialogTitle)...)
	choices := []string{choice(st, keys.Allow, d.verb())}
	if d.plan.Conflicts() {
		choices = append(choices, choice(st, keys.Force, d.verb()+", overwriting what changed since"))
	}
	foot := joinWrapped(append(choices, choice(st, keys.Interrupt, "cancel")), st.meta.Render("  ·  "), width)
	room := max(d.height-len(head)-len(foot), 1)
	lines := d.lines()
	first, last := d.window.fit(len(lines), room)
	var body []string
	for _, l := range lines[first:last] {
		switch l.kind {
		case lineWarn:
			body = append(body, indent+st.warn.Render(ansi.Truncate(l.text, width-4, "…")))
		case lineFile:
			body = append(body, indent+st.subject.Render(ansi.Truncate(l.text, width-4, "…")))
		case lineLabel:
			body = append(body, indent+"  "+st.meta.Render(ansi.Truncate(l.text, width-6, "…")))
		case lineHead:
			body = append(body, indent+"  "+st.meta.Render(ansi.Truncate(l.text, width-6, "…")))
		default:
			body = append(body, diffLine(l.text, width, st))
		}
	}
	if where := d.window.where(len(lines), d.width-4); where != "" {
		body = append(body, indent+"  "+st.meta.Render(where))
	}
	return strings.Join(append(append(head, body...), foot...), "\n")
}

// applyUndo carries the plan out, off the UI's goroutine.
func (m *model) applyUndo(plan checkpoint.Plan, prompt string, force bool) tea.Cmd {
	m.work.op = opUndo
	ctx, s := m.ctx, m.session
	return func() tea.Msg {
		out, _, err := s.ApplyPlan(ctx, plan, force)
		return undoAppliedMsg{redo: plan.Redo, runs: len(plan.Runs), prompt: prompt, outcome: out, err: err}
	}
}

// undoAppliedMsg marks the exchanges taken back (or clears the mark of
// those done again) and says what became of each file.
func (m *model) undoApplied(msg undoAppliedMsg) {
	m.work.op = ""
	var done, left []string
	for _, a := range msg.outcome.Done {
		done = append(done, a.Do.Done()+" "+a.Path)
	}
	for _, a := range msg.outcome.Refused {
		left = append(left, a.Path+" ("+a.Why+")")
	}
	if msg.redo {
		m.unmarkUndone()
	} else {
		m.markUndone(msg.prompt)
	}
	title := "Undone"
	switch {
	case msg.redo:
		title = "Redone"
	case msg.runs > 1:
		title = fmt.Sprintf("Rewound: %d requests undone", msg.runs)
	}
	text := "No file to restore"
	if len(done) > 0 {
		text = strings.Join(done, ", ")
	}
	if len(left) > 0 {
		text += "; left alone: " + strings.Join(left, ", ")
	}
	if msg.err != nil {
		m.notice(noticeError, title+" in part", text+"; then: "+msg.err.Error())
		return
	}
	switch {
	case msg.runs > 1:
		text += ". The model no longer sees those exchanges."
	case !msg.redo:
		text += ". The model no longer sees that exchange."
	}
	m.notice(noticeInfo, title, text)
}

// markUndone marks, from the last prompt reading prompt on, the items of
// the transcript as undone.
func (m *model) markUndone(prompt string) {
	items := m.transcript.items
	from := -1
	for i := len(items) - 1; i >= 0; i-- {
		if u, ok := items[i].(*userItem); ok && u.text == prompt {
			from = i
			break
		}
	}
	if from < 0 {
		return
	}
	for i := from; i < len(items); i++ {
		if _, ok := items[i].(*undoneItem); !ok {
			items[i] = &undoneItem{inner: items[i]}
			m.transcript.changed(i)
		}
	}
}

// unmarkUndone clears the marks of the exchange a redo did again: from
// its prompt (see redoTarget) to the next prompt marked; the requests
// after it stay undone.
func (m *model) unmarkUndone() {
	items := m.transcript.items
	from := m.redoTarget()
	if from < 0 {
		return
	}
	for i := from; i < len(items); i++ {
		u, ok := items[i].(*undoneItem)
		if !ok {
			continue
		}
		if _, prompt := u.inner.(*userItem); prompt && i > from {
			return
		}
		items[i] = u.inner
		m.transcript.changed(i)
	}
}

// undoneItem is an item of an exchange taken back: dimmed, its prompt
// marked.
type undoneItem struct {
	inner item
	r     render
}

func (u *undoneItem) lines(width int, st *theme) []string {
	if l, ok := u.r.get(width); ok {
		return l
	}
	return u.r.set(width, dimmed(u.inner, "↶ undone", width, st))
}

// dimmed is inner's lines dimmed, a prompt's under mark.
func dimmed(inner item, mark string, width int, st *theme) []string {
	lines := inner.lines(width, st)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = st.dim.Render(ansi.Strip(l))
	}
	if _, ok := inner.(*userItem); ok && len(out) > 0 {
		out = append([]string{st.warn.Render(mark)}, out...)
	}
	return out
}

// unsentItem is a prompt that was never sent (the model cannot see its
// images): dimmed, marked, and back in the input.
type unsentItem struct {
	inner item
	r     render
}

func (u *unsentItem) lines(width int, st *theme) []string {
	if l, ok := u.r.get(width); ok {
		return l
	}
	return u.r.set(width, dimmed(u.inner, "⊘ not sent: it is back in the input", width, st))
}

func (u *unsentItem) invalidate() {
	u.r.invalidate()
	u.inner.invalidate()
}

// markUnsent marks the prompt at transcript index i as never sent.
func (m *model) markUnsent(i int) {
	if i >= 0 && i < len(m.transcript.items) {
		if _, ok := m.transcript.items[i].(*userItem); ok {
			m.transcript.items[i] = &unsentItem{inner: m.transcript.items[i]}
			m.transcript.changed(i)
		}
	}
}

func (u *undoneItem) shed(st *theme) {
	if s, ok := u.inner.(shedder); ok {
		s.shed(st)
	}
}

func (u *unsentItem) shed(st *theme) {
	if s, ok := u.inner.(shedder); ok {
		s.shed(st)
	}
}

func (u *undoneItem) invalidate() {
	u.r.invalidate()
	u.inner.invalidate()
}
