// Package mode holds the policy of each of a session's modes (ask, plan,
// build): the system prompt it renders, the tools it offers and allows, and
// what its transition tools do when the model calls them: start a task,
// have a plan reviewed, keep a plan's checklist.
package mode

import (
	"fmt"
	"slices"
	"strings"

	"lathe/orchestrator/plan"
	"lathe/prompts"
	"lathe/tools"
)

// Mode is what the session is doing: answering questions (Ask), planning a
// change (Plan) or making it (Build).
type Mode interface {
	// Name is "ask", "plan" or "build".
	Name() string
	// Prompt renders the mode's system prompt.
	Prompt(env prompts.Env) (string, error)
	// Tools returns the tools the mode offers, and so allows, built from
	// all, the tools of build mode: a registry in a fixed order, so that
	// requests stay byte-stable.
	Tools(all *tools.Registry) *tools.Registry
	isMode()
}

// Ask answers questions about the code with the tools that only read;
// start_task leaves it for build mode.
type Ask struct{}

// Plan investigates with the tools that only read and proposes a plan with
// propose_plan; once the plan is approved, build mode carries it out.
type Plan struct{}

// Build makes changes with every tool, following the approved plan when
// there is one, whose checklist update_plan keeps current (the aids, see
// tools.Aid, are then left out).
type Build struct{ Plan *plan.Plan }

func (Ask) Name() string   { return "ask" }
func (Plan) Name() string  { return "plan" }
func (Build) Name() string { return "build" }
func (Ask) isMode()        {}
func (Plan) isMode()       {}
func (Build) isMode()      {}

func (Ask) Prompt(env prompts.Env) (string, error)  { return prompts.AskPrompt(env) }
func (Plan) Prompt(env prompts.Env) (string, error) { return prompts.PlanPrompt(env) }

func (b Build) Prompt(env prompts.Env) (string, error) {
	var v *prompts.PlanView
	if p := b.Plan; p != nil {
		v = &prompts.PlanView{Summary: p.Summary}
		for _, s := range p.Steps {
			v.Steps = append(v.Steps, s.Text)
		}
	}
	return prompts.BuildPrompt(env, v)
}

func (Ask) Tools(all *tools.Registry) *tools.Registry {
	return tools.NewRegistry(append(reading(all), startTask)...)
}

func (Plan) Tools(all *tools.Registry) *tools.Registry {
	return tools.NewRegistry(append(reading(all), proposePlan)...)
}

func (b Build) Tools(all *tools.Registry) *tools.Registry {
	if b.Plan == nil {
		return all
	}
	var working []tools.Tool
	for _, t := range all.All() {
		if _, aid := t.(tools.Aid); !aid {
			working = append(working, t)
		}
	}
	return tools.NewRegistry(append(working, updatePlan(b.Plan))...)
}

// reading is the tools of all that only read: those of KindRead, and the
// read-only form of a tool that has one (mcp_call's calls only the tools
// that only read).
func reading(all *tools.Registry) []tools.Tool {
	var out []tools.Tool
	for _, t := range all.All() {
		if ro, ok := t.(interface{ ReadOnly() tools.Tool }); ok {
			out = append(out, ro.ReadOnly())
			continue
		}
		if t.Kind() == tools.KindRead {
			out = append(out, t)
		}
	}
	return out
}

// names lists the modes in the order Shift+Tab cycles through them.
var names = []string{"build", "plan", "ask"}

// Names returns the modes' names, in cycling order.
func Names() []string { return slices.Clone(names) }

// Parse returns the mode with the given name.
func Parse(name string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "ask":
		return Ask{}, nil
	case "plan":
		return Plan{}, nil
	case "build":
		return Build{}, nil
	}
	return nil, fmt.Errorf("unknown mode %q: use %s", name, strings.Join(names, ", "))
}

// Next is the mode after m in cycling order (a plan is dropped).
func Next(m Mode) Mode {
	i := slices.Index(names, m.Name())
	next, _ := Parse(names[(i+1)%len(names)])
	return next
}

// Own is m with a plan of its own, which update_plan can change without
// touching the caller's; nil is build mode.
func Own(m Mode) Mode {
	switch m := m.(type) {
	case nil:
		return Build{}
	case Build:
		return Build{Plan: m.Plan.Clone()}
	}
	return m
}

// PlanOf is the plan m follows: build mode's plan, nil in other modes.
func PlanOf(m Mode) *plan.Plan {
	if b, ok := m.(Build); ok {
		return b.Plan
	}
	return nil
}

// Refusal is the result of a call to a tool of another mode: it names the
// tools m offers and what to do instead.
func Refusal(m Mode, tool string, offered *tools.Registry) string {
	return prompts.NotInMode(m.Name(), tool, offered.Names())
}

// Every returns the tools of every mode: all (build mode's) and the
// transition tools. A call to one of them that the current mode does not
// offer is refused rather than unknown.
func Every(all *tools.Registry) *tools.Registry {
	return tools.NewRegistry(append(all.All(), startTask, proposePlan, updatePlan(nil))...)
}
