package mode

import (
	"context"

	"lathe/orchestrator/plan"
	"lathe/tools"
)

// Transition is a prepared call of a transition tool (start_task,
// propose_plan). It ends the turn; the agent has Handle decide what
// follows, then runs the call for its result.
type Transition struct {
	tool   string     // the tool's name, for the calls it cuts off
	goal   string     // start_task
	plan   *plan.Plan // propose_plan
	result tools.Result
}

// Tool is the name of the transition's tool.
func (t *Transition) Tool() string { return t.tool }

// Subject implements tools.Call.
func (t *Transition) Subject() string {
	if t.plan != nil {
		return t.plan.Summary
	}
	return t.goal
}

// Run implements tools.Call: it returns the result Handle decided.
func (t *Transition) Run(context.Context, tools.Caller) (tools.Result, error) { return t.result, nil }

// AsTransition finds the transition under a prepared call.
func AsTransition(c tools.Call) (*Transition, bool) {
	for c != nil {
		if t, ok := c.(*Transition); ok {
			return t, true
		}
		u, ok := c.(interface{ Unwrap() tools.Call })
		if !ok {
			return nil, false
		}
		c = u.Unwrap()
	}
	return nil, false
}

// Change is what a transition, or a plan's review, decides.
type Change struct {
	// Next is the mode from the next turn on; nil when the mode stays.
	Next Mode
	// Reason says why, for the record and the user ("plan approved").
	Reason string
	// Note is the message that tells the model of the change, with Next.
	Note string
	// Result is the transition call's result for the model.
	Result tools.Result
	// Denied marks a rejected plan; Interrupted a review the user stopped
	// instead of deciding, which ends the run.
	Denied, Interrupted bool
	// Kept is a plan kept for the user to review: the run ends with it.
	Kept *plan.Plan
}

// Handle decides what a transition does. A proposed plan is told to
// proposed, then reviewed by rv (nil keeps it for the user). The call's
// result is set for t's Run.
func Handle(ctx context.Context, t *Transition, rv Reviewer, proposed func(*plan.Plan)) Change {
	var ch Change
	if t.plan != nil {
		proposed(t.plan.Clone())
		ch = Review(ctx, t.plan, rv)
	} else {
		ch = ReviewStart(ctx, t.goal, rv)
	}
	t.result = ch.Result
	return ch
}
