package agent

import (
	"context"
	"fmt"
	"strings"

	"lathe/tools"
)

// The transition tools end the turn and change the mode (a tool break):
// start_task leaves ask mode for build mode, propose_plan leaves plan mode
// for build mode once the plan is approved. update_plan is an ordinary
// tool of build mode.
var (
	startTaskTool = tools.Func("start_task",
		"Leave ask mode to make a change: build mode, where files can be edited and commands run, starts on the goal.",
		[]tools.Param{{Name: "goal", Type: "string", Required: true,
			Description: "What to do, in a sentence or two, with what you learned that matters"}},
		true, func(a struct {
			Goal string `json:"goal"`
		}) (tools.Call, error) {
			goal := strings.TrimSpace(a.Goal)
			if goal == "" {
				return nil, fmt.Errorf("argument %q is empty: say what to do", "goal")
			}
			return &transition{tool: "start_task", goal: goal}, nil
		})

	proposePlanTool = tools.Func("propose_plan",
		"Propose the plan for the user to approve. Once approved, build mode carries it out step by step.",
		[]tools.Param{
			{Name: "summary", Type: "string", Required: true, Description: "The change and why, in a few sentences"},
			{Name: "steps", Type: "array", Required: true,
				Description: "The steps in order, each one concrete change or check naming its files"},
		},
		true, func(a struct {
			Summary string   `json:"summary"`
			Steps   []string `json:"steps"`
		}) (tools.Call, error) {
			p, err := newPlan(a.Summary, a.Steps)
			if err != nil {
				return nil, err
			}
			return &transition{tool: "propose_plan", plan: p}, nil
		})
)

// transition is a prepared call of a transition tool. The loop handles it
// (see run.transition) and sets its result, which Run then returns.
type transition struct {
	tool   string
	goal   string // start_task
	plan   *Plan  // propose_plan
	result tools.Result
}

func (t *transition) Subject() string {
	if t.plan != nil {
		return t.plan.Summary
	}
	return t.goal
}

func (t *transition) Run(context.Context) (tools.Result, error) { return t.result, nil }

// asTransition finds the transition under a prepared call.
func asTransition(c tools.Call) (*transition, bool) {
	for c != nil {
		if t, ok := c.(*transition); ok {
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

// newPlan checks a proposed plan: a summary and at least one step, none
// empty.
func newPlan(summary string, steps []string) (*Plan, error) {
	p := &Plan{Summary: strings.TrimSpace(summary)}
	for _, s := range steps {
		if s = strings.TrimSpace(s); s != "" {
			p.Steps = append(p.Steps, PlanStep{Text: s, Status: StepPending})
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

const maxPlanSteps = 30

var stepStatuses = []string{string(StepPending), string(StepInProgress), string(StepDone), string(StepSkipped)}

// updatePlanTool keeps the checklist of the plan build mode follows.
func updatePlanTool(s *Session) tools.Tool {
	return tools.Func("update_plan",
		"Mark a step of the plan: in_progress when you start it, done when it is finished, skipped when it is not needed.",
		[]tools.Param{
			{Name: "step", Type: "integer", Required: true, Description: "The step's number, from 1"},
			{Name: "status", Type: "string", Required: true, Enum: stepStatuses, Description: "Where the step stands"},
		},
		true, func(a struct {
			Step   int    `json:"step"`
			Status string `json:"status"`
		}) (tools.Call, error) {
			status := stepStatus(a.Status)
			if err := tools.OneOf("status", status, stepStatuses); err != nil {
				return nil, err
			}
			subject := fmt.Sprintf("step %d %s", a.Step, status)
			return tools.RunFunc(subject, func(context.Context) (tools.Result, error) {
				return s.markStep(a.Step, StepStatus(status)), nil
			}), nil
		})
}

// stepStatus reads the ways models write a status.
func stepStatus(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	switch s {
	case "todo", "to_do", "not_started", "open":
		return string(StepPending)
	case "in_progress", "started", "doing", "active", "inprogress", "working", "ongoing":
		return string(StepInProgress)
	case "done", "completed", "complete", "finished", "ok":
		return string(StepDone)
	case "skip", "skipped", "not_needed", "cancelled", "canceled":
		return string(StepSkipped)
	}
	return s
}

// markStep sets a step's status and returns the checklist.
func (s *Session) markStep(n int, status StepStatus) tools.Result {
	p := s.plan()
	if p == nil {
		return tools.Errorf("no plan", "there is no plan to update")
	}
	if n < 1 || n > len(p.Steps) {
		return tools.Errorf("no such step", fmt.Sprintf("step %d does not exist: the plan has steps 1 to %d", n, len(p.Steps)))
	}
	p.Steps[n-1].Status = status
	return tools.Result{Content: "Plan updated.\n" + p.Checklist(), Summary: p.Progress()}
}

// Progress is "2/5 done, step 3 in progress".
func (p *Plan) Progress() string {
	s := fmt.Sprintf("%d/%d done", p.Done(), len(p.Steps))
	for i, st := range p.Steps {
		if st.Status == StepInProgress {
			return s + fmt.Sprintf(", step %d in progress", i+1)
		}
	}
	return s
}

// Done counts the steps done or skipped.
func (p *Plan) Done() int {
	n := 0
	for _, st := range p.Steps {
		if st.Status == StepDone || st.Status == StepSkipped {
			n++
		}
	}
	return n
}

// Checklist is the plan's steps, one per line, each with its status.
func (p *Plan) Checklist() string {
	var b strings.Builder
	for i, st := range p.Steps {
		fmt.Fprintf(&b, "%s %d. %s\n", st.Status.Mark(), i+1, st.Text)
	}
	return b.String()
}

// Mark is the status as a checklist box: [ ], [~], [x] or [-].
func (st StepStatus) Mark() string {
	switch st {
	case StepDone:
		return "[x]"
	case StepInProgress:
		return "[~]"
	case StepSkipped:
		return "[-]"
	}
	return "[ ]"
}

// Clone is a copy of the plan that shares nothing with it.
func (p *Plan) Clone() *Plan {
	if p == nil {
		return nil
	}
	c := *p
	c.Steps = append([]PlanStep(nil), p.Steps...)
	return &c
}
