package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/prompts/human"
	"lathe/tools"
)

// dialog is a question the engine waits on, shown in the input's place:
// a call to approve, a plan to review.
type dialog interface {
	// update handles a key; it answers the engine and reports true when
	// the dialog closes.
	update(msg tea.KeyPressMsg, keys keyMap) (closed bool, cmd tea.Cmd)
	// view renders the dialog in at most height lines.
	view(width, height int, st *theme, keys keyMap) string
	// hint is the status line's note while the dialog is open.
	hint() string
	// cancel answers the engine as the user stopping the request would.
	cancel()
}

// approvalDialog asks whether a call that writes or runs a command may
// run, showing exactly what it will do.
type approvalDialog struct {
	ask       approvalAsk
	approver  *dialogApprover  // remembers "allow for this session"
	dir       string           // the working directory, where commands run
	reason    reasonField      // the reason for a denial
	denied    string           // the reason given with a denial, once answered
	escalated tools.Escalation // what was lifted of the sandbox, once answered
	window    scrollWindow     // the part of the body shown: the diff scrolls
}

func newApprovalDialog(ask approvalAsk, approver *dialogApprover, dir string) *approvalDialog {
	return &approvalDialog{ask: ask, approver: approver, dir: dir,
		reason: newReasonField("reason: ", "optional, the model sees it; enter to deny")}
}

// reasonField is the line a dialog opens for a reason, or feedback, the
// model sees: Deny opens it, Enter sends what was typed, Esc goes back to
// the dialog's choices (a key pressed by mistake answers nothing).
type reasonField struct {
	open  bool
	input textinput.Model
}

func newReasonField(prompt, placeholder string) reasonField {
	ti := textinput.New()
	ti.Prompt, ti.Placeholder = prompt, placeholder
	return reasonField{input: ti}
}

// start opens the field.
func (f *reasonField) start() tea.Cmd {
	f.open = true
	return f.input.Focus()
}

// update handles a key while the field is open; sent reports Enter, with
// what was typed.
func (f *reasonField) update(msg tea.KeyPressMsg, keys keyMap) (text string, sent bool, cmd tea.Cmd) {
	switch {
	case key.Matches(msg, keys.Send):
		return strings.TrimSpace(f.input.Value()), true, nil
	case key.Matches(msg, keys.Interrupt):
		f.open = false
		f.input.Blur()
		return "", false, nil
	}
	f.input, cmd = f.input.Update(msg)
	return "", false, cmd
}

// view is the field's line at width.
func (f *reasonField) view(width int) string {
	f.input.SetWidth(max(width-len(f.input.Prompt)-2, 10))
	return " " + f.input.View()
}

func (d *approvalDialog) update(msg tea.KeyPressMsg, keys keyMap) (bool, tea.Cmd) {
	if d.reason.open {
		text, sent, cmd := d.reason.update(msg, keys)
		if sent {
			return d.answer(false, text), nil
		}
		return false, cmd
	}
	if d.window.key(msg, keys, len(d.lines())) {
		return false, nil
	}
	switch {
	case key.Matches(msg, keys.Allow):
		return d.answer(true, ""), nil
	case d.ask.req.Sandboxed && key.Matches(msg, keys.Unconfined):
		return d.escalate(tools.Escalation{Unconfined: true}), nil
	case d.ask.req.Sandboxed && key.Matches(msg, keys.WithNetwork):
		return d.escalate(tools.Escalation{Network: true}), nil
	case key.Matches(msg, keys.AllowSession):
		d.approver.grant(d.ask.req)
		return d.answer(true, ""), nil
	case key.Matches(msg, keys.Deny):
		return false, d.reason.start()
	case key.Matches(msg, keys.Interrupt):
		return d.answer(false, ""), nil
	}
	return false, nil
}

// escalate allows the call once, with part of the sandbox lifted for it:
// never remembered.
func (d *approvalDialog) escalate(e tools.Escalation) bool {
	d.ask.reply <- orchestrator.Decision{Allow: true, Escalation: e}
	d.escalated = e
	return true
}

func (d *approvalDialog) answer(allow bool, reason string) bool {
	d.ask.reply <- orchestrator.Decision{Allow: allow, Reason: reason}
	if !allow {
		d.denied = reason
	}
	return true
}

func (d *approvalDialog) hint() string { return "approval needed" }

func (d *approvalDialog) cancel() {
	d.ask.reply <- orchestrator.Decision{Reason: "the user interrupted the request"}
}

// sessionGrant says what "allow for this session" allows: this exact
// command, or the tool that writes.
func (d *approvalDialog) sessionGrant() string {
	if d.ask.req.Kind == tools.KindExec {
		return "this command"
	}
	return d.ask.req.Tool
}

// lines is what the body shows: the command's lines, or the diff's; their
// control characters escaped, so that what is shown is what will run.
func (d *approvalDialog) lines() []string {
	switch d.ask.req.Kind {
	case tools.KindExec:
		return strings.Split(human.Visible(d.ask.req.Subject), "\n")
	case tools.KindMemory:
		return []string{human.Visible(d.ask.req.Subject)}
	case tools.KindExternal:
		return argumentLines(d.ask.req.Args)
	}
	return diffLines(d.ask.req.Preview)
}

// argumentLines are an MCP call's arguments as indented JSON, a line each,
// their control characters escaped.
func argumentLines(args string) []string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(args), "", "  ") != nil {
		b.Reset()
		b.WriteString(args)
	}
	return strings.Split(human.Visible(b.String()), "\n")
}

// scrollWindow is the part of a dialog's body that shows when the body is
// longer than its room: moved with ↑↓ PgUp PgDn before deciding.
type scrollWindow struct{ top, room int }

// key moves the window over total lines; it reports whether msg was one of
// its keys.
func (s *scrollWindow) key(msg tea.KeyPressMsg, keys keyMap, total int) bool {
	page := max(s.room-1, 1)
	switch {
	case key.Matches(msg, keys.Prev):
		s.top--
	case key.Matches(msg, keys.Next):
		s.top++
	case key.Matches(msg, keys.PageUp):
		s.top -= page
	case key.Matches(msg, keys.PageDown):
		s.top += page
	default:
		return false
	}
	s.top = max(0, min(s.top, total-s.room))
	return true
}

// fit places the window over total lines in room lines, one of which says
// where the view is when not all fit (see where), and returns the lines
// shown.
func (s *scrollWindow) fit(total, room int) (from, to int) {
	s.room = min(room, total)
	if total > room {
		s.room = room - 1
	}
	s.top = max(0, min(s.top, total-s.room))
	return s.top, s.top + s.room
}

// where says which lines of total show; "" when all do.
func (s *scrollWindow) where(total int) string {
	if total <= s.room {
		return ""
	}
	return fmt.Sprintf("lines %d–%d of %d · ↑↓ pgup pgdn scroll", s.top+1, s.top+s.room, total)
}

// view renders the dialog in at most height lines.
func (d *approvalDialog) view(width, height int, st *theme, keys keyMap) string {
	req := d.ask.req
	title := fmt.Sprintf("Allow %s to change %s?", req.Tool, human.Visible(req.Subject))
	switch req.Kind {
	case tools.KindExec:
		title = "Run this command in " + d.dir + "?"
	case tools.KindMemory:
		title = "Remember this about " + d.dir + ", for its next sessions?"
	case tools.KindExternal:
		title = fmt.Sprintf("Allow the MCP server %s to run %s with these arguments?", human.Visible(req.Server), human.Visible(req.ServerTool))
	}
	head := append([]string{st.rule.Render(strings.Repeat("─", width))}, wrap("? "+title, width, " ", "   ", st.dialogTitle)...)
	if len(req.Blocked) > 0 {
		head = append(head, wrap("! the sandbox blocked it last time: "+blockedList(req.Blocked), width, " ", "   ", st.warn)...)
	}
	if req.Note != "" {
		head = append(head, wrap("! "+req.Note, width, " ", "   ", st.warn)...)
	}
	foot := d.footer(width, st, keys)
	room := max(height-len(head)-len(foot), 1)
	return strings.Join(append(append(head, d.body(width, room, st)...), foot...), "\n")
}

// blockedList names what the sandbox blocked, the first few of it.
func blockedList(blocked []string) string {
	const most = 3
	list := human.Visible(strings.Join(blocked[:min(len(blocked), most)], "; "))
	if len(blocked) > most {
		list += fmt.Sprintf("; and %d more", len(blocked)-most)
	}
	return list
}

// body shows what the call will do, the command or the diff, in at most
// room lines from the scroll position: frames lay the dialog out 30 times a
// second, so only the lines shown are styled.
func (d *approvalDialog) body(width, room int, st *theme) []string {
	lines, line := d.lines(), func(l string) string { return diffLine(human.Visible(l), width, st) }
	switch d.ask.req.Kind {
	case tools.KindExec:
		line = func(l string) string {
			return indent + st.subject.Render("$ "+ansi.Truncate(tabsToSpaces(l), width-6, "…"))
		}
	case tools.KindMemory:
		var wrapped []string
		for _, l := range lines {
			wrapped = append(wrapped, wrap(l, width, indent+"  ", indent+"  ", st.subject)...)
		}
		lines, line = wrapped, func(l string) string { return l }
	case tools.KindExternal:
		line = func(l string) string {
			return indent + st.subject.Render(ansi.Truncate(tabsToSpaces(l), width-4, "…"))
		}
	}
	from, to := d.window.fit(len(lines), room)
	out := make([]string, 0, room)
	for _, l := range lines[from:to] {
		out = append(out, line(l))
	}
	if where := d.window.where(len(lines)); where != "" {
		out = append(out, indent+"  "+st.meta.Render(where))
	}
	return out
}

// footer lists the choices, wrapped between them, never inside one.
func (d *approvalDialog) footer(width int, st *theme, keys keyMap) []string {
	if d.reason.open {
		return []string{d.reason.view(width)}
	}
	k := func(b key.Binding, text string) string { return st.key.Render(b.Help().Key) + " " + text }
	choices := []string{
		k(keys.Allow, "allow once"),
		k(keys.AllowSession, "allow "+d.sessionGrant()+" for this session"),
	}
	if d.ask.req.Sandboxed {
		choices = append(choices, k(keys.Unconfined, "run outside the sandbox"), k(keys.WithNetwork, "with network"))
	}
	return joinWrapped(append(choices,
		k(keys.Deny, "deny with a reason"),
		k(keys.Interrupt, "deny"),
	), st.meta.Render("  ·  "), width)
}

// joinWrapped joins parts with sep into lines of at most width columns,
// each starting with a space, breaking only between parts.
func joinWrapped(parts []string, sep string, width int) []string {
	var lines []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = " " + p
		case ansi.StringWidth(line+sep+p) <= width:
			line += sep + p
		default:
			lines = append(lines, line)
			line = " " + p
		}
	}
	return append(lines, line)
}
