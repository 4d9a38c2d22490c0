// Package plan holds a plan the model proposed in plan mode and its
// checklist, which build mode keeps current as it carries the plan out.
package plan

import (
	"fmt"
	"strings"

	"lathe/orchestrator/session"
)

// Plan is what build mode carries out, step by step.
type Plan struct {
	Summary string `json:"summary"`
	Steps   []Step `json:"steps"`
}

// Step is one step of a plan and where it stands.
type Step struct {
	Text   string `json:"text"`
	Status Status `json:"status"`
}

// Status is where a plan's step stands.
type Status string

const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Done       Status = "done"
	Skipped    Status = "skipped"
)

// Statuses lists every status, in the order a step goes through them.
var Statuses = []Status{Pending, InProgress, Done, Skipped}

// Progress is "2/5 done, step 3 in progress".
func (p *Plan) Progress() string {
	s := fmt.Sprintf("%d/%d done", p.Finished(), len(p.Steps))
	for i, st := range p.Steps {
		if st.Status == InProgress {
			return s + fmt.Sprintf(", step %d in progress", i+1)
		}
	}
	return s
}

// Finished counts the steps done or skipped.
func (p *Plan) Finished() int {
	n := 0
	for _, st := range p.Steps {
		if st.Status == Done || st.Status == Skipped {
			n++
		}
	}
	return n
}

// Started reports whether any step has left pending.
func (p *Plan) Started() bool {
	for _, st := range p.Steps {
		if st.Status != Pending {
			return true
		}
	}
	return false
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
func (st Status) Mark() string {
	switch st {
	case Done:
		return "[x]"
	case InProgress:
		return "[~]"
	case Skipped:
		return "[-]"
	}
	return "[ ]"
}

// Record is the plan as the session store keeps it, sharing nothing with
// it; nil for no plan.
func (p *Plan) Record() *session.PlanRecord {
	if p == nil {
		return nil
	}
	r := &session.PlanRecord{Summary: p.Summary, Steps: make([]session.PlanStep, len(p.Steps))}
	for i, st := range p.Steps {
		r.Steps[i] = session.PlanStep{Text: st.Text, Status: string(st.Status)}
	}
	return r
}

// FromRecord is the plan the session store kept as r; nil for none.
func FromRecord(r *session.PlanRecord) *Plan {
	if r == nil {
		return nil
	}
	p := &Plan{Summary: r.Summary, Steps: make([]Step, len(r.Steps))}
	for i, st := range r.Steps {
		p.Steps[i] = Step{Text: st.Text, Status: Status(st.Status)}
	}
	return p
}

// Clone is a copy of the plan that shares nothing with it.
func (p *Plan) Clone() *Plan {
	if p == nil {
		return nil
	}
	c := *p
	c.Steps = append([]Step(nil), p.Steps...)
	return &c
}
