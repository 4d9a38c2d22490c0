package mode

import (
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

// startTaskChange is what start_task does: build mode, on the goal.
func startTaskChange(goal string) Change {
	return Change{Next: Build{}, Reason: "start_task: " + goal, Note: prompts.StartTaskNote(goal),
		Result: tools.Result{Content: prompts.StartTaskResult(), Summary: "build mode"}}
}
