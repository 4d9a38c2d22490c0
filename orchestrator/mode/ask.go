package mode

import (
	"context"
	"fmt"
	"strings"

	"lathe/prompts"
	"lathe/tools"
)

// startTask leaves ask mode for build mode, on a goal.
var startTask = tools.Func("start_task",
	"Leave ask mode to make a change: build mode, where files can be edited and commands run, starts on the goal.",
	[]tools.Param{{Name: "goal", Type: "string", Required: true,
		Description: "What to do, in a sentence or two, with what you learned that matters"}},
	tools.KindTransition, func(a struct {
		Goal string `json:"goal"`
	}) (tools.Call, error) {
		goal := strings.TrimSpace(a.Goal)
		if goal == "" {
			return nil, fmt.Errorf("argument %q is empty: say what to do", "goal")
		}
		return &Transition{tool: "start_task", goal: goal}, nil
	})

// ReviewStart has rv decide whether start_task leaves ask mode for build
// mode on goal. Without a reviewer (headless without --yes) it stays:
// leaving ask mode is the user's call, as carrying out a plan is.
func ReviewStart(ctx context.Context, goal string, rv Reviewer) Change {
	if rv == nil {
		return Change{Denied: true, Result: tools.Result{Content: prompts.StartTaskUnattended(), IsError: true,
			Summary: "needs the user's approval"}}
	}
	v, err := rv.StartTask(ctx, goal)
	switch {
	case err != nil || ctx.Err() != nil:
		return Change{Interrupted: true, Result: tools.Result{Content: prompts.StartTaskInterrupted(),
			IsError: true, Summary: "interrupted"}}
	case v.Decision == Approve:
		return Change{Next: Build{}, Reason: "start_task: " + goal, Note: prompts.StartTaskNote(goal),
			Result: tools.Result{Content: prompts.StartTaskResult(), Summary: "build mode"}}
	}
	return Change{Denied: true, Result: tools.Result{Content: prompts.StartTaskDenied(strings.TrimSpace(v.Feedback)),
		IsError: true, Summary: "stayed in ask mode"}}
}
