package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/prompts/human"
)

// The dialogs in which the user reviews what the model proposes: a plan to
// carry out, and leaving ask mode to work on something.

// planAsk is a proposed plan waiting for the user's review.
type planAsk struct {
	plan  plan.Plan
	reply chan mode.Verdict // buffered: answering never blocks
}

// startAsk is a start_task waiting for the user: may ask mode give way to
// build mode, to work on goal?
type startAsk struct {
	goal  string
	reply chan mode.Verdict // buffered: answering never blocks
}

// startDialog asks whether ask mode may switch to build mode to work on
// the model's goal, or stay, with a reason for the model.
type startDialog struct {
	dialogBase
	ask     startAsk
	reason  reasonField // why it stays
	verdict mode.Verdict
}

var _ dialog = (*startDialog)(nil)

func newStartDialog(ask startAsk, st *theme, keys keyMap) *startDialog {
	return &startDialog{dialogBase: newDialogBase(st, keys), ask: ask,
		reason: newReasonField("reason: ", "optional, the model sees it; enter keeps ask mode")}
}

// Update handles a key: a choice answers, and closes the dialog.
func (d *startDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	if !ok {
		return d, nil
	}
	if d.reason.open {
		text, sent, cmd := d.reason.update(k, d.keys)
		if sent {
			return d, d.decide(mode.Verdict{Decision: mode.Reject, Feedback: text})
		}
		return d, cmd
	}
	switch {
	case key.Matches(k, d.keys.Allow):
		return d, d.decide(mode.Verdict{Decision: mode.Approve})
	case key.Matches(k, d.keys.Deny):
		return d, d.reason.start()
	case key.Matches(k, d.keys.Interrupt):
		return d, d.decide(mode.Verdict{Decision: mode.Reject})
	}
	return d, nil
}

func (d *startDialog) decide(v mode.Verdict) tea.Cmd {
	d.verdict = v
	return d.close(d)
}

// answer sends the engine the user's verdict.
func (d *startDialog) answer() { d.ask.reply <- d.verdict }

func (d *startDialog) hint() string { return "leave ask mode?" }

func (d *startDialog) cancel() { d.ask.reply <- mode.Verdict{Decision: mode.Reject} }

func (d *startDialog) View() string {
	st, width := d.st, d.width
	lines := append([]string{d.rule()},
		wrap("? Leave ask mode for build mode, to work on this?", width, " ", "   ", st.dialogTitle)...)
	lines = append(lines, wrap(human.Visible(d.ask.goal), width, "   ", "   ", st.plain)...)
	if d.reason.open {
		return strings.Join(append(lines, d.reason.view(width)), "\n")
	}
	return strings.Join(append(lines, joinWrapped([]string{
		choice(st, d.keys.Allow, "switch to build mode"),
		choice(st, d.keys.Deny, "stay, with a reason"),
		choice(st, d.keys.Interrupt, "stay"),
	}, st.meta.Render("  ·  "), width)...), "\n")
}

// planDialog asks whether to carry out the plan shown above it in the
// transcript, reject it with feedback, or keep it and stop.
type planDialog struct {
	dialogBase
	ask      planAsk
	feedback reasonField // the feedback of a rejection
	verdict  mode.Verdict
}

var _ dialog = (*planDialog)(nil)

func newPlanDialog(ask planAsk, st *theme, keys keyMap) *planDialog {
	return &planDialog{dialogBase: newDialogBase(st, keys), ask: ask,
		feedback: newReasonField("feedback: ", "what to change; enter rejects the plan with it")}
}

// Update handles a key: a choice answers, and closes the dialog.
func (d *planDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	if !ok {
		return d, nil
	}
	if d.feedback.open {
		text, sent, cmd := d.feedback.update(k, d.keys)
		if sent {
			return d, d.decide(mode.Verdict{Decision: mode.Reject, Feedback: text})
		}
		return d, cmd
	}
	switch {
	case key.Matches(k, d.keys.Allow):
		return d, d.decide(mode.Verdict{Decision: mode.Approve})
	case key.Matches(k, d.keys.Deny):
		return d, d.feedback.start()
	case key.Matches(k, d.keys.Interrupt):
		return d, d.decide(mode.Verdict{Decision: mode.Keep})
	}
	return d, nil
}

func (d *planDialog) decide(v mode.Verdict) tea.Cmd {
	d.verdict = v
	return d.close(d)
}

// answer sends the engine the user's verdict.
func (d *planDialog) answer() { d.ask.reply <- d.verdict }

func (d *planDialog) hint() string { return "plan review" }

func (d *planDialog) cancel() { d.ask.reply <- mode.Verdict{Decision: mode.Keep} }

func (d *planDialog) View() string {
	st, width := d.st, d.width
	title := fmt.Sprintf("? Carry out this plan of %s in build mode?", human.Plural(len(d.ask.plan.Steps), "step"))
	lines := append([]string{d.rule()}, wrap(title, width, " ", "   ", st.dialogTitle)...)
	if d.feedback.open {
		return strings.Join(append(lines, d.feedback.view(width)), "\n")
	}
	return strings.Join(append(lines, joinWrapped([]string{
		choice(st, d.keys.Allow, "approve and build"),
		choice(st, d.keys.Deny, "reject with feedback"),
		choice(st, d.keys.Interrupt, "keep it and stop"),
	}, st.meta.Render("  ·  "), width)...), "\n")
}

// planAnswered sends the engine the user's verdict on the plan, and marks
// the plan in the transcript with it.
func (m *model) planAnswered(d *planDialog) {
	d.answer()
	if m.run != nil {
		m.run.planReviewed(d.verdict)
	}
}
