package orchestrator

import (
	"fmt"
	"slices"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/orchestrator/provider"
	"lathe/prompts"
	"lathe/tools"
)

// transition handles a call of a transition tool: the mode decides what
// follows, and the run arranges it for the end of the turn: a mode change,
// or the end of the run.
func (r *run) transition(turn int, c *callState, t *mode.Transition) {
	r.emit(ToolStarted{Turn: turn, Index: c.index, ID: c.call.ID, Name: c.call.Name, Kind: c.kind, Args: c.args, Subject: c.subject})
	ch := mode.Handle(r.ctx, t, r.s.opts.Reviewer, func(p *plan.Plan) { r.emit(PlanProposed{Turn: turn, Plan: p}) })
	res, _ := c.prepared.Run(r.ctx, tools.Caller{Session: r.s.id}) // the result Handle set, with the note on repaired arguments
	c.result, c.outcome = res, r.follow(ch)
	r.finish(turn, c)
}

// follow arranges what a change decided and returns the outcome of the
// call that led to it.
func (r *run) follow(ch mode.Change) Outcome {
	switch {
	case ch.Interrupted:
		r.res.StopReason = StopInterrupted // the run ends, however it was to go on
		return OutcomeInterrupted
	case ch.Denied:
		return OutcomeDenied
	case ch.Kept != nil:
		r.planned = ch.Kept
	case ch.Next != nil:
		r.change = &ch
	}
	return OutcomeOK
}

// applyChange switches to the mode a transition asked for, from the next
// message on, and tells the model with a note.
func (r *run) applyChange(ch *mode.Change) error {
	s := r.s
	from := s.mode.Name()
	if err := s.setMode(r.ctx, ch.Next, ch.Reason); err != nil {
		return err
	}
	r.record(provider.Message{Role: "user", Content: ch.Note})
	r.saveMode()
	r.emit(ModeChanged{From: from, To: ch.Next.Name(), Reason: ch.Reason, Plan: mode.PlanOf(s.mode).Clone()})
	if notes := s.takeNotes(); len(notes) > 0 {
		r.emit(ToolsChanged{Notes: notes})
	}
	return nil
}

// shown saves and reports what a UI-only tool changed: the plan's
// checklist.
func (r *run) shown() {
	s := r.s
	p := mode.PlanOf(s.mode)
	if p == nil {
		return
	}
	s.modeRec.Plan = p.Record()
	r.saveMode()
	s.publish()
	r.emit(PlanUpdated{Plan: p.Clone()})
}

// planFromReply handles a reply of plan mode that ends without calling
// propose_plan: the plan it describes is asked for again as structured
// output, checked, and reviewed as if proposed. A reply that proposes no
// plan ends the run as an answer. It reports whether the run goes on.
func (r *run) planFromReply(turn int) (more bool, err error) {
	p, err := r.structuredPlan()
	if err != nil || p == nil {
		return false, err
	}
	r.emit(PlanProposed{Turn: turn, Plan: p.Clone()})
	ch := mode.Review(r.ctx, p, r.s.opts.Reviewer)
	switch r.follow(ch) {
	case OutcomeDenied:
		r.record(provider.Message{Role: "user", Content: prompts.NotePrefix + ch.Result.Content})
		return true, nil
	case OutcomeOK:
		return ch.Next != nil, nil
	}
	return false, nil // the review was interrupted
}

// structuredPlan asks for the plan of the last reply as JSON in a side
// request, and once more with the error when the answer is not a valid
// plan. It returns nil when the reply proposed no plan, or when the second
// answer is no better (with a warning). The request is the conversation's
// own, tools included, so that the server reuses the prompt it has cached;
// the format's grammar leaves the model no room for a call.
func (r *run) structuredPlan() (*plan.Plan, error) {
	req := r.s.request()
	req.Format = mode.PlanSchema
	msgs := append(slices.Clone(req.Messages), provider.Message{Role: "user", Content: prompts.PlanRequest()})
	for attempt := 1; ; attempt++ {
		req.Messages = msgs
		text, err := r.ask(req, 2048)
		if err != nil {
			return nil, err
		}
		p, err := mode.ParsePlan(text)
		if err == nil {
			r.s.opts.Log.Debug().Int("attempt", attempt).Bool("plan", p != nil).Msg("plan asked for as structured output")
			return p, nil
		}
		r.s.opts.Log.Debug().Int("attempt", attempt).Err(err).Msg("structured plan did not validate")
		if attempt == 2 {
			r.emit(Warning{Text: fmt.Sprintf("the model's plan could not be read (%v); its reply stands as the answer", err)})
			return nil, nil
		}
		msgs = append(msgs, provider.Message{Role: "assistant", Content: text},
			provider.Message{Role: "user", Content: prompts.PlanRetry(err.Error())})
	}
}
