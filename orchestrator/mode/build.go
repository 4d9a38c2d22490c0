package mode

import (
	"context"
	"fmt"
	"strings"

	"lathe/orchestrator/plan"
	"lathe/tools"
)

// statusNames are the statuses update_plan takes.
var statusNames = func() []string {
	out := make([]string, len(plan.Statuses))
	for i, s := range plan.Statuses {
		out[i] = string(s)
	}
	return out
}()

// updatePlan keeps the checklist of p, the plan build mode follows. It
// changes only what the user is shown, so it runs without asking; nil p
// (for listing the tools of every mode) has no plan to update.
func updatePlan(p *plan.Plan) tools.Tool {
	return tools.Func("update_plan",
		"Mark a step of the plan: in_progress when you start it, done when it is finished, skipped when it is not needed.",
		[]tools.Param{
			{Name: "step", Type: "integer", Required: true, Description: "The step's number, from 1"},
			{Name: "status", Type: "string", Required: true, Enum: statusNames, Description: "Where the step stands"},
		},
		tools.KindUI, func(a struct {
			Step   int    `json:"step"`
			Status string `json:"status"`
		}) (tools.Call, error) {
			status := stepStatus(a.Status)
			if err := tools.OneOf("status", status, statusNames); err != nil {
				return nil, err
			}
			subject := fmt.Sprintf("step %d %s", a.Step, status)
			return tools.RunFunc(subject, func(context.Context, tools.Caller) (tools.Result, error) {
				return markStep(p, a.Step, plan.Status(status)), nil
			}), nil
		})
}

// stepStatus reads the ways models write a status.
func stepStatus(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	switch s {
	case "todo", "to_do", "not_started", "open":
		return string(plan.Pending)
	case "in_progress", "started", "doing", "active", "inprogress", "working", "ongoing":
		return string(plan.InProgress)
	case "done", "completed", "complete", "finished", "ok":
		return string(plan.Done)
	case "skip", "skipped", "not_needed", "cancelled", "canceled":
		return string(plan.Skipped)
	}
	return s
}

// markStep sets a step's status and returns the checklist.
func markStep(p *plan.Plan, n int, status plan.Status) tools.Result {
	if p == nil {
		return tools.Errorf("no plan", "there is no plan to update")
	}
	if n < 1 || n > len(p.Steps) {
		return tools.Errorf("no such step", fmt.Sprintf("step %d does not exist: the plan has steps 1 to %d", n, len(p.Steps)))
	}
	p.Steps[n-1].Status = status
	return tools.Result{Content: "Plan updated.\n" + p.Checklist(), Summary: p.Progress()}
}
