package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/orchestrator/hooks"
	"lathe/prompts/human"
)

// hooksState is the UI's part of the hooks: whether the user was asked
// to trust the project's.
type hooksState struct {
	asked bool
}

// hookLines are the lines a tool card shows of its hooks, under its
// header: a block, what they printed, what went wrong.
func (c *toolCard) hookLines(width int, st *theme) []string {
	if c.end == nil {
		return nil
	}
	var out []string
	for _, n := range c.end.HookNotes {
		out = append(out, indent+"  "+st.meta.Render(ansi.Truncate("⚑ "+human.Visible(n), width-4, "…")))
	}
	return out
}

// hookRan tells what the hooks of an event other than a call's did: a
// call's card shows its own.
func (m *model) hookRan(e orchestrator.HookRan) {
	if e.Tool != "" && e.Index >= 0 {
		return
	}
	o := e.Outcome
	for _, r := range o.Runs {
		if r.Output != "" && r.Status != hooks.StatusBlocked {
			m.notice(noticeInfo, "", e.Event+" hook: "+human.Visible(strings.TrimSpace(r.Output)))
		}
	}
	reason := human.Visible(strings.TrimSpace(o.Reason))
	switch {
	case o.Stop:
		m.notice(noticeWarn, "", "A "+e.Event+" hook stopped the request: "+human.Visible(o.StopReason))
	case o.Block && e.Event == hooks.UserPromptSubmit:
		m.notice(noticeWarn, "", "A UserPromptSubmit hook blocked the prompt: "+reason)
	case o.Block && e.Event == hooks.Stop:
		m.notice(noticeInfo, "", "A Stop hook sent the model back to work: "+reason)
	case o.Block:
		m.notice(noticeWarn, "", "A "+e.Event+" hook objected: "+reason)
	}
}

// offerHooksTrust asks, once, whether to run the hooks the project
// declares: when the UI starts, or once the dialog open then is answered.
func (m *model) offerHooksTrust() {
	r := m.opts.Hooks
	if r == nil || m.hooks.asked || m.dialog != nil {
		return
	}
	untrusted := r.Untrusted()
	if len(untrusted) == 0 {
		return
	}
	m.hooks.asked = true
	var lines []string
	project := false
	for _, h := range untrusted {
		line := h.Event + " " + matcherText(h.Matcher) + ": " + h.Command
		if why := r.TrustReason(h); why != "" {
			line += " (" + why + ")"
		}
		lines = append(lines, line)
		project = project || h.Project
	}
	m.dialog = newHooksTrustDialog(lines, project, &m.st, m.keys)
}

func matcherText(m string) string {
	if m == "" {
		return "*"
	}
	return m
}

// hooksTrustDialog asks whether to run the hooks that need trust: the
// project's, commands a cloned repository names, which must not run
// unasked; and the user's own that run files of the project.
type hooksTrustDialog struct {
	dialogBase
	hooks   []string // "EVENT MATCHER: command", and why, for the user's own
	project bool     // some are the project's
	trusted bool
}

var _ dialog = (*hooksTrustDialog)(nil)

func newHooksTrustDialog(hooks []string, project bool, st *theme, keys keyMap) *hooksTrustDialog {
	return &hooksTrustDialog{dialogBase: newDialogBase(st, keys), hooks: hooks, project: project}
}

// Update handles a key: a choice answers, and closes the dialog.
func (d *hooksTrustDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	switch {
	case !ok:
	case key.Matches(k, d.keys.Allow):
		d.trusted = true
		return d, d.close(d)
	case key.Matches(k, d.keys.Deny), key.Matches(k, d.keys.Interrupt):
		return d, d.close(d)
	}
	return d, nil
}

func (d *hooksTrustDialog) hint() string { return "run the project's hooks?" }
func (d *hooksTrustDialog) cancel()      {}

func (d *hooksTrustDialog) View() string {
	st, width := d.st, d.width
	title := "? This project declares hooks: commands lathe would run at its events, as you, outside the sandbox. Run them?"
	if !d.project {
		title = "? Hooks of yours run files of this project: lathe would run them at their events, as you, outside the sandbox. Run them?"
	}
	lines := append([]string{d.rule()}, wrap(title, width, " ", "   ", st.dialogTitle)...)
	for _, h := range d.hooks {
		lines = append(lines, indent+st.subject.Render(human.Line(human.Visible(h), max(width-4, 10))))
	}
	return strings.Join(append(lines, joinWrapped([]string{
		choice(st, d.keys.Allow, "run them, and remember these hooks and the scripts they run"),
		choice(st, d.keys.Interrupt, "not now")}, st.meta.Render("  ·  "), width)...), "\n")
}

// hooksTrustedMsg ends /hooks trust, or the start-up question: the trust
// was kept (or could not be); project says whether some of the hooks
// trusted were the project's, not only the user's own.
type hooksTrustedMsg struct {
	err     error
	project bool
}

// hooksTrustAnswered lets the project's hooks run, if the user said so.
func (m *model) hooksTrustAnswered(d *hooksTrustDialog) tea.Cmd {
	if !d.trusted {
		if d.project {
			m.notice(noticeInfo, "", "The project's hooks do not run; /hooks trust runs them.")
		} else {
			m.notice(noticeInfo, "", "Your hooks that run the project's files do not run; /hooks trust runs them.")
		}
		return nil
	}
	return m.trustHooks()
}

// trustHooks lets the project's hooks run from now on and keeps the
// trust given, for these very hooks and scripts, in the trust file.
func (m *model) trustHooks() tea.Cmd {
	r, keep := m.opts.Hooks, m.opts.TrustHooks
	project := slices.ContainsFunc(r.Untrusted(), func(h hooks.Hook) bool { return h.Project })
	return func() tea.Msg {
		r.Trust()
		var err error
		if keep != nil {
			err = keep()
		}
		return hooksTrustedMsg{err, project}
	}
}

func (m *model) hooksTrusted(msg hooksTrustedMsg) {
	which := "The project's hooks"
	if !msg.project {
		which = "Your hooks that run the project's files"
	}
	if msg.err != nil {
		m.notice(noticeWarn, "", which+" run now, but lathe will ask again next time: "+msg.err.Error())
		return
	}
	m.notice(noticeInfo, "", which+" run from now on.")
}

// cmdHooks is /hooks: the hooks configured, where from, and whether the
// project's run; /hooks trust lets them.
func (m *model) cmdHooks(arg string) tea.Cmd {
	r := m.opts.Hooks
	if r == nil {
		m.notice(noticeInfo, "", "No hook is configured: add one as [[hooks.EVENT]] in your config, or in the project's .claude/settings.json.")
		return nil
	}
	waiting := r.Untrusted()
	untrusted := len(waiting) > 0
	if arg == "trust" {
		if !untrusted {
			m.notice(noticeInfo, "", "No hook waits for trust.")
			return nil
		}
		return m.trustHooks()
	}
	item := &tableItem{title: "Hooks"}
	for _, h := range r.Hooks() {
		from := human.Path(h.Source, m.opts.Dir, m.opts.Home)
		if slices.Contains(waiting, h) {
			from += ", not trusted: does not run"
			if why := r.TrustReason(h); why != "" {
				from += ": " + why
			}
		}
		item.rows = append(item.rows, [2]string{h.Event + " " + human.Visible(matcherText(h.Matcher)),
			human.Visible(h.Command) + " (" + from + ")"})
	}
	switch {
	case slices.ContainsFunc(waiting, func(h hooks.Hook) bool { return h.Project }):
		item.foot = "The project's hooks run outside the sandbox, so only once you trust them: /hooks trust."
	case untrusted:
		item.foot = "Hooks that run files of the project run outside the sandbox, so only once you trust them: /hooks trust."
	}
	m.transcript.add(item)
	return nil
}
