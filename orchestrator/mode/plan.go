package mode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"lathe/orchestrator/plan"
	"lathe/prompts"
	"lathe/tools"
)

// proposePlan leaves plan mode with a plan, for the user to review.
var proposePlan = tools.Func("propose_plan",
	"Propose the plan for the user to approve. Once approved, build mode carries it out step by step.",
	[]tools.Param{
		{Name: "summary", Type: "string", Required: true, Description: "The change and why, in a few sentences"},
		{Name: "steps", Type: "array", Required: true,
			Description: "The steps in order, each one concrete change or check naming its files"},
	},
	tools.KindTransition, func(a struct {
		Summary string   `json:"summary"`
		Steps   []string `json:"steps"`
	}) (tools.Call, error) {
		p, err := NewPlan(a.Summary, a.Steps)
		if err != nil {
			return nil, err
		}
		return &Transition{tool: "propose_plan", plan: p}, nil
	})

const maxPlanSteps = 30

// NewPlan checks a proposed plan: a summary and at least one step, none
// empty. Its errors are for the model.
func NewPlan(summary string, steps []string) (*plan.Plan, error) {
	p := &plan.Plan{Summary: strings.TrimSpace(summary)}
	for _, s := range steps {
		if s = strings.TrimSpace(s); s != "" {
			p.Steps = append(p.Steps, plan.Step{Text: s, Status: plan.Pending})
		}
	}
	switch {
	case len(p.Steps) == 0:
		return nil, fmt.Errorf("argument %q has no steps: list the steps of the change", "steps")
	case len(p.Steps) > maxPlanSteps:
		return nil, fmt.Errorf("argument %q has %d steps: keep the plan to %d, merging small ones", "steps", len(p.Steps), maxPlanSteps)
	case p.Summary == "":
		return nil, fmt.Errorf("argument %q is empty: say what the change is", "summary")
	}
	return p, nil
}

// Reviewer decides on a plan proposed in plan mode. The agent waits for the
// answer; an error (ctx done) interrupts the run.
type Reviewer interface {
	Review(ctx context.Context, p plan.Plan) (Verdict, error)
	// StartTask decides whether ask mode gives way to build mode to work
	// on goal: Approve switches; anything else stays in ask mode, with
	// the feedback of a Reject.
	StartTask(ctx context.Context, goal string) (Verdict, error)
}

// Verdict is a reviewer's answer.
type Verdict struct {
	Decision Decision
	Feedback string // with Reject, shown to the model
}

// Decision is what becomes of a proposed plan.
type Decision string

const (
	// Approve: build mode carries the plan out, in the same run.
	Approve Decision = "approve"
	// Reject: plan mode goes on, with the feedback.
	Reject Decision = "reject"
	// Keep: the run ends with the plan, for the user to review.
	Keep Decision = "keep"
)

// ApproveAll approves every plan and every start of a task (headless
// --yes).
type ApproveAll struct{}

// Review implements Reviewer.
func (ApproveAll) Review(context.Context, plan.Plan) (Verdict, error) {
	return Verdict{Decision: Approve}, nil
}

// StartTask implements Reviewer.
func (ApproveAll) StartTask(context.Context, string) (Verdict, error) {
	return Verdict{Decision: Approve}, nil
}

// Review has rv decide on p (nil rv keeps it) and says what follows: build
// mode on the plan, plan mode with the feedback, or the end of the run.
func Review(ctx context.Context, p *plan.Plan, rv Reviewer) Change {
	v := Verdict{Decision: Keep}
	if rv != nil {
		var err error
		v, err = rv.Review(ctx, *p.Clone())
		if err != nil || ctx.Err() != nil {
			return Change{Interrupted: true, Result: tools.Result{Content: prompts.PlanReviewInterrupted(),
				IsError: true, Summary: "interrupted"}}
		}
	}
	switch v.Decision {
	case Approve:
		return Change{Next: Build{Plan: p}, Reason: "plan approved", Note: prompts.PlanApprovedNote(),
			Result: tools.Result{Content: prompts.PlanApprovedResult(), Summary: "approved"}}
	case Reject:
		return Change{Denied: true, Result: tools.Result{Content: prompts.PlanRejected(strings.TrimSpace(v.Feedback)),
			IsError: true, Summary: "rejected"}}
	}
	return Change{Kept: p, Result: tools.Result{Content: prompts.PlanKept(), Summary: "proposed"}}
}

// PlanSchema is the format of a plan asked for as structured output.
var PlanSchema = json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string"},` +
	`"steps":{"type":"array","items":{"type":"string"}}},"required":["summary","steps"]}`)

// ParsePlan reads a plan sent as structured output (PlanSchema): nil when
// it has no steps. Its errors are for the model.
func ParsePlan(text string) (*plan.Plan, error) {
	var v struct {
		Summary *string   `json:"summary"`
		Steps   *[]string `json:"steps"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a JSON object of the schema: %v", err)
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object")
	}
	switch {
	case v.Steps == nil:
		return nil, errors.New(`"steps" is missing`)
	case len(*v.Steps) == 0:
		return nil, nil
	case v.Summary == nil:
		return nil, errors.New(`"summary" is missing`)
	}
	return NewPlan(*v.Summary, *v.Steps)
}
