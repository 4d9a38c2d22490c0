package agent

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"lathe/prompts"
	"lathe/tools"
)

// Mode is what the session is doing: answering questions (AskMode),
// planning a change (PlanMode) or making it (BuildMode). A mode decides the
// system prompt, the tools offered and allowed, and how it ends: through a
// transition tool (start_task, propose_plan) that breaks the turn and
// starts the next one in the new mode.
type Mode interface {
	Name() string
	isMode()
}

// AskMode answers questions about the code with read-only tools;
// start_task leaves it for build mode.
type AskMode struct{}

// PlanMode investigates with read-only tools and proposes a plan with
// propose_plan; once the plan is approved, build mode carries it out.
type PlanMode struct{}

// BuildMode makes changes with every tool, following the approved plan
// when there is one, whose checklist update_plan keeps current.
type BuildMode struct{ Plan *Plan }

func (AskMode) Name() string   { return "ask" }
func (PlanMode) Name() string  { return "plan" }
func (BuildMode) Name() string { return "build" }
func (AskMode) isMode()        {}
func (PlanMode) isMode()       {}
func (BuildMode) isMode()      {}

// ModeNames lists the modes in the order Shift+Tab cycles through them.
var modeNames = []string{"build", "plan", "ask"}

// ModeNames returns the modes' names, in cycling order.
func ModeNames() []string { return slices.Clone(modeNames) }

// ParseMode returns the mode with the given name.
func ParseMode(name string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "ask":
		return AskMode{}, nil
	case "plan":
		return PlanMode{}, nil
	case "build":
		return BuildMode{}, nil
	}
	return nil, fmt.Errorf("unknown mode %q: use %s", name, strings.Join(modeNames, ", "))
}

// NextMode is the mode after m in cycling order (a plan is dropped).
func NextMode(m Mode) Mode {
	i := slices.Index(modeNames, m.Name())
	next, _ := ParseMode(modeNames[(i+1)%len(modeNames)])
	return next
}

// ownMode is m with a plan of its own, which update_plan can change
// without touching the caller's; nil is build mode.
func ownMode(m Mode) Mode {
	switch m := m.(type) {
	case nil:
		return BuildMode{}
	case BuildMode:
		return BuildMode{Plan: m.Plan.Clone()}
	}
	return m
}

// systemPrompt renders a mode's system prompt.
func systemPrompt(env prompts.Env, m Mode) (string, error) {
	switch m := m.(type) {
	case AskMode:
		return prompts.AskPrompt(env)
	case PlanMode:
		return prompts.PlanPrompt(env)
	case BuildMode:
		return prompts.BuildPrompt(env, m.Plan.view())
	}
	return "", fmt.Errorf("no prompt for mode %T", m)
}

// view is the plan as the build prompt shows it.
func (p *Plan) view() *prompts.PlanView {
	if p == nil {
		return nil
	}
	v := &prompts.PlanView{Summary: p.Summary}
	for _, s := range p.Steps {
		v.Steps = append(v.Steps, s.Text)
	}
	return v
}

// enter makes m the mode, with its tools.
func (s *Session) enter(m Mode) {
	s.mode, s.tools = m, s.toolsFor(m)
	s.toolsTokens = (len(s.tools.Definitions().String()) + 3) / 4
}

// toolsFor builds the registry of a mode: the read-only tools and its
// transition tool for ask and plan; every tool, and update_plan when
// there is a plan, for build. Transition tools are offered only in the
// modes they leave.
func (s *Session) toolsFor(m Mode) *tools.Registry {
	all := s.opts.Tools
	if m == Mode(BuildMode{}) {
		return all
	}
	var list []tools.Tool
	for _, name := range all.Names() {
		t, _ := all.Lookup(name)
		if _, build := m.(BuildMode); build || t.ReadOnly() {
			list = append(list, t)
		}
	}
	switch m := m.(type) {
	case AskMode:
		list = append(list, startTaskTool)
	case PlanMode:
		list = append(list, proposePlanTool)
	case BuildMode:
		if m.Plan != nil {
			list = append(list, updatePlanTool(s))
		}
	}
	return tools.NewRegistry(list...)
}

// modeToolNames are the tools of some modes only, besides the tools of
// build mode.
var modeToolNames = []string{"start_task", "propose_plan", "update_plan"}

// notInMode is the refusal of a call to a tool the current mode does not
// allow.
func (s *Session) notInMode(name string) string {
	allowed := strings.Join(s.tools.Names(), ", ")
	switch s.mode.(type) {
	case AskMode:
		return fmt.Sprintf("%s is not available in ask mode, which only reads (%s). To make a change, call start_task with the goal.", name, allowed)
	case PlanMode:
		return fmt.Sprintf("%s is not available in plan mode, which only investigates (%s). Propose the change with propose_plan; it is made once the plan is approved.", name, allowed)
	}
	return fmt.Sprintf("%s is not available in %s mode (%s)", name, s.mode.Name(), allowed)
}

// known reports whether a tool of some mode has the name.
func (s *Session) known(name string) bool {
	_, ok := s.opts.Tools.Lookup(name)
	return ok || slices.Contains(modeToolNames, name)
}

// plan is the plan build mode follows; nil in other modes and without
// one.
func (s *Session) plan() *Plan {
	if m, ok := s.mode.(BuildMode); ok {
		return m.Plan
	}
	return nil
}

// Mode is the session's mode. Its plan, in build mode, is the session's
// own: do not modify it.
func (s *Session) Mode() Mode { return s.mode }

// SetMode switches the session to mode m (the user's choice) from its
// next request on. It must not be called during Run.
func (s *Session) SetMode(ctx context.Context, m Mode, reason string) error {
	if reflect.DeepEqual(m, s.mode) {
		return nil
	}
	if err := s.setMode(ownMode(m), reason); err != nil {
		return err
	}
	if st := s.opts.Store; st != nil && s.created {
		return st.SaveMode(ctx, s.id, s.modeRec)
	}
	return nil
}

// setMode makes m the mode from the next message of the history on: its
// system prompt replaces the old one, and its tools are offered. The
// prompt Ollama has cached no longer matches, so it reads the whole
// conversation again once: that is the price of a mode change.
func (s *Session) setMode(m Mode, reason string) error {
	if s.model.Name != "" {
		system, err := systemPrompt(s.opts.Env, m)
		if err != nil {
			return err
		}
		s.messages[0].Content = system
	}
	from := s.mode.Name()
	s.enter(m)
	s.modeRec = ModeRecord{Seq: max(0, len(s.messages)-1), Mode: m.Name(), Plan: s.plan().Clone(),
		Reason: reason, Created: s.opts.Now()}
	s.used, s.usedAt = 0, 0 // a new system prompt: the count no longer holds
	s.opts.Log.Debug().Str("from", from).Str("to", m.Name()).Str("reason", reason).
		Strs("tools", s.tools.Names()).Msg("mode changed: the prompt cache starts over")
	return nil
}

// restoreMode takes a resumed session's mode from its last record.
func (s *Session) restoreMode(recs []ModeRecord) error {
	if len(recs) == 0 {
		return nil
	}
	rec := recs[len(recs)-1]
	m, err := ParseMode(rec.Mode)
	if err != nil {
		return err
	}
	if _, ok := m.(BuildMode); ok && rec.Plan != nil {
		m = BuildMode{Plan: rec.Plan.Clone()}
	}
	s.enter(m)
	s.modeRec = rec
	return nil
}
