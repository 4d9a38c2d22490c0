package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/prompts"
)

// A plan outlives the request that proposed it: one kept for later (Esc
// in its dialog) can be approved afterwards, and one the model stopped
// short of finishing is said to be unfinished, and can be taken up again.

// keptPlan is the plan kept for later, in plan mode: the last plan of
// the transcript, when the user kept it; nil when there is none.
func (m *model) keptPlan() *plan.Plan {
	if m.mode.name != "plan" {
		return nil
	}
	for i := len(m.transcript.items) - 1; i >= 0; i-- {
		if p, ok := m.transcript.items[i].(*planItem); ok {
			if p.state == planKept {
				return p.plan
			}
			return nil
		}
	}
	return nil
}

// unfinished reports whether build mode's plan has steps left.
func unfinished(p *plan.Plan) bool { return p != nil && p.Finished() < len(p.Steps) }

// cmdPlan is /plan: where the plan stands; /plan go approves a plan kept
// and has it carried out, or has the model go on with an unfinished one.
func (m *model) cmdPlan(arg string) tea.Cmd {
	kept, current := m.keptPlan(), m.mode.plan
	switch {
	case arg != "" && arg != "go":
		m.notice(noticeWarn, "", "/plan shows the plan; /plan go carries it out")
	case arg == "go" && kept != nil:
		if m.refuseBusy() {
			return nil
		}
		approved := kept.Clone()
		m.queue(orchestrator.Prompt{Text: prompts.PlanApprovedNote()}) // sent once the mode is set
		return m.setMode(mode.Build{Plan: approved}, "/plan go: the plan kept was approved", true)
	case arg == "go" && unfinished(current):
		return m.send(prompts.PlanGoOnNote())
	case arg == "go" && current != nil:
		m.notice(noticeInfo, "", "The plan is done: every step is checked off.")
	case kept != nil:
		m.notice(noticeInfo, "Plan kept", kept.Summary+"\n"+kept.Checklist()+"/plan go approves it and has it carried out in build mode.")
	case current != nil:
		text := current.Summary + "\n" + current.Checklist()
		if unfinished(current) {
			text += "/plan go has the model go on with the steps not done."
		}
		m.notice(noticeInfo, "Plan ("+current.Progress()+")", text)
	default:
		m.notice(noticeInfo, "", "No plan: in plan mode (/mode plan, or "+m.keys.CycleMode.Help().Key+") the model proposes one.")
	}
	return nil
}

// planLeftUnfinished tells, once a request answered, that the model
// stopped with steps of its plan left.
func (m *model) planLeftUnfinished(stop orchestrator.StopReason) {
	if p := m.mode.plan; stop == orchestrator.StopDone && unfinished(p) {
		m.notice(noticeWarn, "", fmt.Sprintf("The model stopped with the plan unfinished: %d of %d steps done. "+
			"/plan go has it go on; a prompt of yours works too.", p.Finished(), len(p.Steps)))
	}
}
