package orchestrator

import (
	"fmt"
	"lathe/prompts/human"

	"lathe/config"
)

// Explain says, in a sentence for people, why a run that did not simply
// answer ended, naming the limit that stopped it and how to change it; ""
// for a run that answered or kept its plan. A failed run's error says it
// better: Explain returns "" for StopError too.
func (r Result) Explain(lim config.Limits) string {
	switch r.StopReason {
	case StopMaxTurns:
		return fmt.Sprintf("stopped after %s, the limit (limits.max_turns, or --max-turns)", human.Plural(r.Turns, "turn"))
	case StopToolBudget:
		return fmt.Sprintf("stopped: the budget of %s was used up (limits.tool_calls_per_prompt)", human.Plural(lim.ToolCallsPerPrompt, "tool call"))
	case StopTimeout:
		return fmt.Sprintf("stopped: the time limit of %s was reached (limits.timeout)", lim.Timeout.Duration)
	case StopRepetition:
		return fmt.Sprintf("stopped: the model made the same call (%s) %d times with the same result (limits.repeat_stop)",
			r.Repeated, lim.RepeatStop)
	case StopEmpty:
		return "stopped: the model gave an empty reply twice; try again, or another model"
	case StopInterrupted:
		return "interrupted"
	case StopHook:
		return "stopped by a hook: " + r.HookReason
	}
	return ""
}
