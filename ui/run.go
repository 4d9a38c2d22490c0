package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/tools"
	"lathe/ui/markdown"
)

// silence is how long a reply may stream nothing before the TUI says it
// is waiting.
const silence = time.Second

// runState is a prompt being answered, as it shows. Update applies the
// engine's events of the run to the transcript: the turn's thinking and
// answer stream into items of their own, each call gets a card. An item
// they change is rendered at the next frame (refresh), not at each
// token. View is the line that shows the model is being waited for.
type runState struct {
	t     *transcript
	st    *theme
	now   func() time.Time
	model string // the model answering, named while it is waited for

	cancel   context.CancelFunc
	prompt   orchestrator.Prompt // what was sent
	promptAt int                 // transcript index of the prompt
	turn     int
	answer   int // transcript index of this turn's answer; -1 for none
	thinking int // transcript index of this turn's thinking; -1 for none
	plan     int // transcript index of the plan proposed last; -1 for none
	cards    map[int]int
	dirty    map[int]bool // items changed since the last frame
	stopping bool         // interrupted, waiting for the run to end
	arrived  bool         // the model sent something: text, thinking, a call
	asking   bool         // a request is out, its reply not complete
	streamed bool         // the reply has sent a token
	heard    time.Time    // when the request went out, or its last token came
	waitFor  string       // what the request waits for before its first token
	spin     int          // the spinners' step
}

func newRunState(t *transcript, st *theme, now func() time.Time, model string, cancel context.CancelFunc) *runState {
	return &runState{t: t, st: st, now: now, model: model, cancel: cancel,
		answer: -1, thinking: -1, plan: -1, cards: map[int]int{}, dirty: map[int]bool{}}
}

// Update applies an event of the engine about the run.
func (r *runState) Update(msg tea.Msg) (*runState, tea.Cmd) {
	switch e := msg.(type) {
	case orchestrator.TurnStarted:
		r.turn = e.Turn
		r.answer, r.thinking, r.cards = -1, -1, map[int]int{}
		r.asking, r.streamed, r.heard, r.waitFor = true, false, r.now(), e.Waiting()
	case orchestrator.ThinkingDelta:
		r.thinkingDelta(e)
	case orchestrator.TextDelta:
		r.textDelta(e)
	case orchestrator.ReplyRewritten:
		r.replyRewritten(e)
	case orchestrator.ToolStarted:
		if e.Kind != tools.KindUI { // the plan's checklist shows it; a failure gets a card
			r.addCard(e)
		}
	case orchestrator.ToolProgress:
		r.toolProgress(e)
	case orchestrator.ToolFinished:
		r.toolFinished(e)
	case orchestrator.TurnFinished:
		r.asking = false
		r.endThinking()
		r.endAnswer()
	case orchestrator.PlanProposed:
		r.planProposed(e)
	}
	return r, nil
}

// heard notes a token of the reply: a sign of life.
func (r *runState) hear() {
	r.arrived, r.streamed, r.heard = true, true, r.now()
}

func (r *runState) thinkingDelta(e orchestrator.ThinkingDelta) {
	r.hear()
	if r.thinking < 0 {
		r.t.addStreamed(&thinkingItem{started: r.now()})
		r.thinking = len(r.t.items) - 1
	}
	r.t.items[r.thinking].(*thinkingItem).add(e.Text)
	r.dirty[r.thinking] = true
}

func (r *runState) textDelta(e orchestrator.TextDelta) {
	r.endThinking()
	r.hear()
	if r.answer < 0 {
		r.t.addStreamed(&answerItem{md: markdown.NewDoc(r.st.renderer())})
		r.answer = len(r.t.items) - 1
	}
	// Tabs have no width on the terminal's cell grid: code indented with
	// them would lose its indentation.
	r.t.items[r.answer].(*answerItem).md.Append(tabsToSpaces(e.Text))
	r.dirty[r.answer] = true
}

// endThinking folds the turn's thinking once something else comes.
func (r *runState) endThinking() {
	if r.thinking < 0 {
		return
	}
	if t := r.t.items[r.thinking].(*thinkingItem); !t.done {
		t.finish(r.now())
		r.dirty[r.thinking] = true
	}
}

// endAnswer completes the turn's answer: text after this starts a new one,
// below whatever comes in between.
func (r *runState) endAnswer() {
	if r.answer < 0 {
		return
	}
	r.t.items[r.answer].(*answerItem).md.Finish()
	r.dirty[r.answer] = true
	r.answer = -1
}

// replyRewritten replaces the turn's streamed text by what remains of it
// once the tool calls written in it were taken out.
func (r *runState) replyRewritten(e orchestrator.ReplyRewritten) {
	if r.answer < 0 {
		return
	}
	md := markdown.NewDoc(r.st.renderer())
	md.Append(tabsToSpaces(e.Content))
	r.t.items[r.answer].(*answerItem).md = md
	r.dirty[r.answer] = true
}

// interjected ends the reply's stream for something shown below it: a
// call's card, a plan.
func (r *runState) interjected() {
	r.arrived, r.asking = true, false
	r.endThinking()
	r.endAnswer()
}

// addCard shows a call that started.
func (r *runState) addCard(e orchestrator.ToolStarted) {
	r.interjected()
	r.t.add(&toolCard{start: e})
	r.cards[e.Index] = len(r.t.items) - 1
}

// toolProgress shows on its card how far a running call got.
func (r *runState) toolProgress(e orchestrator.ToolProgress) {
	if r.turn != e.Turn {
		return
	}
	if i, ok := r.cards[e.Index]; ok {
		if c := r.t.items[i].(*toolCard); c.running() {
			c.setProgress(e.Text)
			r.dirty[i] = true
		}
	}
}

func (r *runState) toolFinished(e orchestrator.ToolFinished) {
	if e.Kind == tools.KindUI && e.Outcome != orchestrator.OutcomeOK {
		r.addCard(orchestrator.ToolStarted{Turn: e.Turn, Index: e.Index, ID: e.ID, Name: e.Name, Kind: e.Kind, Subject: e.Subject})
	}
	if i, ok := r.cards[e.Index]; ok {
		r.t.items[i].(*toolCard).finish(e)
		r.dirty[i] = true
	}
}

// planProposed shows a plan the model proposed; a dialog asks about it
// next.
func (r *runState) planProposed(e orchestrator.PlanProposed) {
	r.interjected()
	r.t.add(&planItem{plan: e.Plan, state: planProposed})
	r.plan = len(r.t.items) - 1
}

// planApproved marks the plan proposed as approved, its checklist p; it
// returns the plan's item, -1 when none was proposed.
func (r *runState) planApproved(p *plan.Plan) int {
	if r.plan >= 0 {
		r.t.items[r.plan].(*planItem).set(p, planApproved)
		r.dirty[r.plan] = true
	}
	return r.plan
}

// planReviewed marks the plan proposed with the user's verdict.
func (r *runState) planReviewed(rv mode.Verdict) {
	if r.plan < 0 {
		return
	}
	p := r.t.items[r.plan].(*planItem)
	switch rv.Decision {
	case mode.Reject:
		p.state, p.feedback = planRejected, rv.Feedback
	case mode.Keep:
		p.state = planKept
	}
	r.dirty[r.plan] = true
}

// changed marks item i for the next frame.
func (r *runState) changed(i int) { r.dirty[i] = true }

// setWaiting marks the card of the call being approved.
func (r *runState) setWaiting(w bool) {
	for _, i := range r.cards {
		if c := r.t.items[i].(*toolCard); c.running() {
			c.setWaiting(w)
			r.t.changed(i)
		}
	}
}

// denied keeps the reason the user gave for denying req on its card.
func (r *runState) denied(req orchestrator.ApprovalRequest, reason string) {
	for _, i := range r.cards {
		if c := r.t.items[i].(*toolCard); c.waiting && c.start.Name == req.Tool && c.start.Subject == req.Subject {
			c.denial = reason
			r.dirty[i] = true
		}
	}
}

// refresh re-renders the items that changed since the last frame.
func (r *runState) refresh() {
	for i := range r.dirty {
		r.t.changed(i)
		delete(r.dirty, i)
	}
}

// tick turns the spinners to step.
func (r *runState) tick(step int) {
	r.spin = step
	for _, i := range r.cards {
		if r.t.items[i].(*toolCard).tick(step) {
			r.t.changed(i)
		}
	}
}

// end closes the run's stream: what it showed stays, rendered.
func (r *runState) end() {
	r.endThinking()
	r.endAnswer()
	r.refresh()
}

// View is the line that shows the model is being waited for: from the
// request until its first token, and whenever the reply has been silent
// for a while; "" otherwise. The frames that run while a request is out
// move its spinner and its time.
func (r *runState) View() string {
	if r.stopping || !r.asking {
		return ""
	}
	quiet := r.now().Sub(r.heard)
	if r.streamed && quiet < silence {
		return ""
	}
	spin := r.st.accent.Render(spinnerFrames[r.spin%len(spinnerFrames)])
	what := r.waitFor
	switch {
	case r.streamed:
		what = "writing · silent"
	case what == "":
		what = "waiting for " + r.model
	}
	return indent + spin + " " + r.st.meta.Render(fmt.Sprintf("%s · %s", what, elapsed(quiet)))
}

// elapsed writes d in whole seconds: "3s", "1m05s".
func elapsed(d time.Duration) string {
	s := int(d.Seconds())
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
