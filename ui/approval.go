package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/prompts/human"
	"lathe/tools"
)

// approvalAsk is a call waiting for the user's decision.
type approvalAsk struct {
	req   orchestrator.ApprovalRequest
	reply chan orchestrator.Decision // buffered: answering never blocks
}

// approvalDialog asks whether a call that writes or runs a command may
// run, showing exactly what it will do.
type approvalDialog struct {
	dialogBase
	ask      approvalAsk
	dir      string                // the working directory, where commands run
	reason   reasonField           // the reason for a denial
	window   scrollWindow          // the part of the body shown: the diff scrolls
	folded   foldedRows            // the body's rows at the dialog's width
	decision orchestrator.Decision // the user's, once answered
	grant    bool                  // "allow for this session": the approver remembers it
}

var _ dialog = (*approvalDialog)(nil)

func newApprovalDialog(ask approvalAsk, dir string, st *theme, keys keyMap) *approvalDialog {
	return &approvalDialog{dialogBase: newDialogBase(st, keys), ask: ask, dir: dir,
		reason: newReasonField("reason: ", "optional, the model sees it; enter to deny")}
}

// Update handles a key: a choice answers, and closes the dialog.
func (d *approvalDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	if !ok {
		return d, nil
	}
	keys := d.keys
	if d.reason.open {
		text, sent, cmd := d.reason.update(k, keys)
		if sent {
			return d, d.decide(orchestrator.Decision{Reason: text})
		}
		return d, cmd
	}
	if d.window.key(k, keys, len(d.rows())) {
		return d, nil
	}
	switch {
	case key.Matches(k, keys.Allow):
		return d, d.decide(orchestrator.Decision{Allow: true})
	case d.ask.req.Sandboxed && key.Matches(k, keys.Unconfined):
		// Part of the sandbox lifted for this run alone: never remembered.
		return d, d.decide(orchestrator.Decision{Allow: true, Escalation: tools.Escalation{Unconfined: true}})
	case d.ask.req.Sandboxed && key.Matches(k, keys.WithNetwork):
		return d, d.decide(orchestrator.Decision{Allow: true, Escalation: tools.Escalation{Network: true}})
	case key.Matches(k, keys.AllowSession):
		d.grant = true
		return d, d.decide(orchestrator.Decision{Allow: true})
	case key.Matches(k, keys.Deny):
		return d, d.reason.start()
	case key.Matches(k, keys.Interrupt):
		return d, d.decide(orchestrator.Decision{})
	}
	return d, nil
}

func (d *approvalDialog) decide(decision orchestrator.Decision) tea.Cmd {
	d.decision = decision
	return d.close(d)
}

// answer sends the engine the user's decision.
func (d *approvalDialog) answer() { d.ask.reply <- d.decision }

func (d *approvalDialog) hint() string { return "approval needed" }

func (d *approvalDialog) cancel() {
	d.ask.reply <- orchestrator.Decision{Reason: "the user interrupted the request"}
}

// approvalAnswered carries out the user's decision on a call: "allow for
// this session" remembered, the engine answered, a denial's reason kept on
// the call's card, a sandbox lifted told.
func (m *model) approvalAnswered(d *approvalDialog) {
	if d.grant {
		m.approver.grants.Grant(d.ask.req)
	}
	d.answer()
	if dec := d.decision; !dec.Allow && dec.Reason != "" && m.run != nil {
		m.run.denied(d.ask.req, dec.Reason)
	}
	switch {
	case d.decision.Escalation.Unconfined:
		m.notice(noticeWarn, "", "This command runs outside the sandbox, as you chose (this once).")
	case d.decision.Escalation.Network:
		m.notice(noticeWarn, "", "This command runs with network access, as you chose (this once).")
	}
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
	lines := diffLines(d.ask.req.Preview)
	for i, l := range lines {
		lines[i] = human.Visible(l)
	}
	return lines
}

// rows is the body's lines folded to the dialog's width, none cut: a fact
// wraps as prose, the rest folds (see fold).
func (d *approvalDialog) rows() []bodyRow {
	if d.ask.req.Kind != tools.KindMemory {
		return d.folded.at(d.width-bodyIndent, d.lines)
	}
	var rows []bodyRow
	for _, l := range wrap(d.lines()[0], d.width-bodyIndent, "", "", lipgloss.NewStyle()) {
		rows = append(rows, bodyRow{text: l})
	}
	return rows
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

// View renders the dialog in at most its height.
func (d *approvalDialog) View() string {
	req, st, width := d.ask.req, d.st, d.width
	verb := "change"
	if strings.HasPrefix(req.Preview, "--- "+tools.NewFile+"\n") {
		verb = "create"
	}
	title := fmt.Sprintf("Allow %s to %s %s?", req.Tool, verb, human.Visible(req.Subject))
	switch req.Kind {
	case tools.KindExec:
		title = "Run this command in " + d.dir + "?"
	case tools.KindMemory:
		title = "Remember this about " + d.dir + ", for its next sessions?"
	case tools.KindExternal:
		title = fmt.Sprintf("Allow the MCP server %s to run %s with these arguments?", human.Visible(req.Server), human.Visible(req.ServerTool))
	}
	head := append([]string{d.rule()}, wrap("? "+title, width, " ", "   ", st.dialogTitle)...)
	if len(req.Blocked) > 0 {
		head = append(head, wrap("! the sandbox blocked it last time: "+blockedList(req.Blocked), width, " ", "   ", st.warn)...)
	}
	if req.Note != "" {
		head = append(head, wrap("! "+req.Note, width, " ", "   ", st.warn)...)
	}
	foot := d.footer()
	room := max(d.height-len(head)-len(foot), 1)
	return strings.Join(append(append(head, d.body(room)...), foot...), "\n")
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

// bodyIndent is the columns before the body's text: the margin, and "$ "
// before a command, "↪" before a row that goes on from the one above.
const bodyIndent = 4

// body shows what the call will do, the command or the diff, in at most
// room rows from the scroll position: frames lay the dialog out 30 times a
// second, so only the rows shown are styled.
func (d *approvalDialog) body(room int) []string {
	st, rows := d.st, d.rows()
	from, to := d.window.fit(len(rows), room)
	out := make([]string, 0, room)
	for _, r := range rows[from:to] {
		lead, style := indent+"  ", st.subject
		switch d.ask.req.Kind {
		case tools.KindExec:
			lead = indent + st.subject.Render("$ ")
		case tools.KindMemory:
			lead = indent + "  "
		case tools.KindExternal:
		default:
			style = diffStyle(r.start, st)
		}
		if r.cont {
			lead = indent + " " + st.meta.Render("↪")
		}
		out = append(out, lead+style.Render(r.text))
	}
	if where := d.window.where(len(rows), d.width-4); where != "" {
		out = append(out, indent+"  "+st.meta.Render(where))
	}
	return out
}

// footer lists the choices, wrapped between them, never inside one.
func (d *approvalDialog) footer() []string {
	if d.reason.open {
		return []string{d.reason.view(d.width)}
	}
	st, keys := d.st, d.keys
	choices := []string{
		choice(st, keys.Allow, "allow once"),
		choice(st, keys.AllowSession, "allow "+d.sessionGrant()+" for this session"),
	}
	if d.ask.req.Sandboxed {
		choices = append(choices, choice(st, keys.Unconfined, "run outside the sandbox"), choice(st, keys.WithNetwork, "with network"))
	}
	return joinWrapped(append(choices,
		choice(st, keys.Deny, "deny with a reason"),
		choice(st, keys.Interrupt, "deny"),
	), st.meta.Render("  ·  "), d.width)
}

// dialogApprover asks the user through the TUI's dialogs: whether a call
// may run, after the grants the user made during this session (a tool
// that writes, or one exact command), and what to do with a plan. A
// command the sandbox blocked something of the last time it ran is asked
// about, grant or not: the user may lift the sandbox for it.
type dialogApprover struct {
	b      *bridge
	grants orchestrator.Grants
}

var (
	_ orchestrator.Approver = (*dialogApprover)(nil)
	_ mode.Reviewer         = (*dialogApprover)(nil)
)

// Approve implements orchestrator.Approver.
func (a *dialogApprover) Approve(ctx context.Context, req orchestrator.ApprovalRequest) (orchestrator.Decision, error) {
	if a.grants.Cover(ctx, req) {
		return orchestrator.Decision{Allow: true}, nil
	}
	ask := approvalAsk{req: req, reply: make(chan orchestrator.Decision, 1)}
	return askUser(ctx, a.b, ask, ask.reply)
}

// Review implements orchestrator.Reviewer: a proposed plan.
func (a *dialogApprover) Review(ctx context.Context, p plan.Plan) (mode.Verdict, error) {
	ask := planAsk{plan: p, reply: make(chan mode.Verdict, 1)}
	return askUser(ctx, a.b, ask, ask.reply)
}

// StartTask implements orchestrator.Reviewer: ask mode giving way to
// build mode.
func (a *dialogApprover) StartTask(ctx context.Context, goal string) (mode.Verdict, error) {
	ask := startAsk{goal: goal, reply: make(chan mode.Verdict, 1)}
	return askUser(ctx, a.b, ask, ask.reply)
}

// askUser sends question to Update and waits for the answer on reply, or
// for ctx to end.
func askUser[T any](ctx context.Context, b *bridge, question any, reply <-chan T) (T, error) {
	var zero T
	select {
	case b.ch <- question:
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-b.done:
		return zero, context.Canceled
	}
	select {
	case answer := <-reply:
		return answer, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}
