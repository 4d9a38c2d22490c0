package agent

// Plan is a plan the model proposed in plan mode: what build mode carries
// out, step by step, keeping the checklist current.
type Plan struct {
	Summary string     `json:"summary"`
	Steps   []PlanStep `json:"steps"`
}

// PlanStep is one step of a plan and where it stands.
type PlanStep struct {
	Text   string     `json:"text"`
	Status StepStatus `json:"status"`
}

// StepStatus is where a plan's step stands.
type StepStatus string

const (
	StepPending    StepStatus = "pending"
	StepInProgress StepStatus = "in_progress"
	StepDone       StepStatus = "done"
	StepSkipped    StepStatus = "skipped"
)
