package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/tools"
)

// Reviewer decides on a plan proposed in plan mode. The loop waits for
// the answer; an error (ctx done) interrupts the run.
type Reviewer interface {
	Review(ctx context.Context, p Plan) (Review, error)
}

// Review is a reviewer's answer.
type Review struct {
	Verdict  Verdict
	Feedback string // with VerdictReject, shown to the model
}

// Verdict is what becomes of a proposed plan.
type Verdict string

const (
	// VerdictApprove: build mode carries the plan out, in the same run.
	VerdictApprove Verdict = "approve"
	// VerdictReject: plan mode goes on, with the feedback.
	VerdictReject Verdict = "reject"
	// VerdictStop: the run ends with the plan (StopPlanned), for the
	// user to review.
	VerdictStop Verdict = "stop"
)

// ApprovePlans approves every plan (headless --yes).
type ApprovePlans struct{}

// Review implements Reviewer.
func (ApprovePlans) Review(context.Context, Plan) (Review, error) {
	return Review{Verdict: VerdictApprove}, nil
}

// modeChange is a transition waiting for the end of the turn.
type modeChange struct {
	to     Mode
	reason string
	note   string // the synthetic message that tells the model
}

// notePrefix starts the messages lathe adds to the conversation in the
// user's place, telling the model what happened.
const notePrefix = "[lathe] "

// IsNote reports whether m is a message lathe added in the user's place.
func IsNote(m api.Message) bool { return m.Role == "user" && strings.HasPrefix(m.Content, notePrefix) }

// Messages the model gets at transitions.
const (
	noteStartTask     = notePrefix + "Now in build mode (start_task): every tool is available. Work on the goal: %s"
	notePlanApproved  = notePrefix + "The user approved the plan; now in build mode, every tool available. Carry out the steps in order, marking each with update_plan as you start and finish it."
	resultStartTask   = "Switching to build mode: the next turn has every tool."
	resultApproved    = "The user approved the plan. Build mode starts with the next turn."
	resultRejected    = "The user rejected the plan."
	resultFeedback    = " Their feedback: %s"
	resultRevise      = " Look into what you need, then propose a revised plan with propose_plan."
	resultPlanStopped = "The plan is recorded for the user to review; the request ends here."
	notRunModeChanged = "not run: the mode changed before this call; make it again in the new mode if it is still needed"
	notRunTurnEnded   = "not run: %s ended the turn before this call; make it again if it is still needed"
)

// transition handles a call of a transition tool: it settles the call's
// result and arranges the mode change or the stop that ends the turn.
func (r *run) transition(turn int, c *callState, t *transition) {
	r.emit(ToolStarted{Turn: turn, Index: c.index, ID: c.call.ID, Name: c.call.Function.Name, Args: c.args, Subject: c.subject})
	outcome := OutcomeOK
	switch t.tool {
	case "start_task":
		r.change = &modeChange{to: BuildMode{}, reason: "start_task: " + t.goal, note: fmt.Sprintf(noteStartTask, t.goal)}
		t.result = tools.Result{Content: resultStartTask, Summary: "build mode"}
	case "propose_plan":
		v, text := r.decide(turn, t.plan)
		t.result = tools.Result{Content: text, Summary: string(v)}
		switch v {
		case VerdictReject:
			outcome, t.result.IsError, t.result.Summary = OutcomeDenied, true, "rejected"
		case VerdictApprove:
			t.result.Summary = "approved"
		case VerdictStop:
			t.result.Summary = "proposed"
		default:
			outcome, t.result.IsError, t.result.Summary = OutcomeInterrupted, true, "interrupted"
		}
	}
	res, _ := c.prepared.Run(r.ctx) // the transition's result, with the note on repaired arguments
	c.result, c.outcome = res, outcome
	r.finish(turn, c)
}

// decide has a proposed plan reviewed and arranges what follows: build
// mode next when it is approved, the end of the run when it is kept for
// the user. It returns the verdict and the words that tell the model;
// the verdict is "" when the review was interrupted.
func (r *run) decide(turn int, p *Plan) (Verdict, string) {
	r.emit(PlanProposed{Turn: turn, Plan: p.Clone()})
	rev := Review{Verdict: VerdictStop}
	if rv := r.s.opts.Reviewer; rv != nil {
		var err error
		rev, err = rv.Review(r.ctx, *p.Clone())
		if err != nil || r.ctx.Err() != nil {
			r.res.StopReason = StopInterrupted // the run ends, however it was to go on
			return "", "interrupted: the user stopped the request before deciding on the plan"
		}
	}
	r.s.opts.Log.Debug().Str("verdict", string(rev.Verdict)).Int("steps", len(p.Steps)).Msg("plan reviewed")
	switch rev.Verdict {
	case VerdictApprove:
		r.change = &modeChange{to: BuildMode{Plan: p}, reason: "plan approved", note: notePlanApproved}
		return VerdictApprove, resultApproved
	case VerdictReject:
		text := resultRejected
		if f := strings.TrimSpace(rev.Feedback); f != "" {
			text += fmt.Sprintf(resultFeedback, f)
		}
		return VerdictReject, text + resultRevise
	}
	r.planned = p
	return VerdictStop, resultPlanStopped
}

// applyChange switches to the mode a transition asked for, from the next
// message on, and tells the model with a synthetic message.
func (r *run) applyChange(ch *modeChange) error {
	s := r.s
	from := s.mode.Name()
	if err := s.setMode(ch.to, ch.reason); err != nil {
		return err
	}
	r.record(api.Message{Role: "user", Content: ch.note})
	r.saveMode()
	r.emit(ModeChanged{From: from, To: ch.to.Name(), Reason: ch.reason, Plan: s.plan().Clone()})
	return nil
}

// planUpdated saves and reports the plan's checklist after update_plan.
func (r *run) planUpdated() {
	s := r.s
	s.modeRec.Plan = s.plan().Clone()
	r.saveMode()
	r.emit(PlanUpdated{Plan: s.modeRec.Plan.Clone()})
}

// planSchema is the format of a plan asked for as structured output.
var planSchema = json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string"},` +
	`"steps":{"type":"array","items":{"type":"string"}}},"required":["summary","steps"]}`)

const (
	planRequest = notePrefix + "Write the plan from your last reply as JSON: a summary of the change, and the steps in order, " +
		"each one concrete change or check naming its files. If your reply proposed no plan (you need an answer " +
		"from the user first), give an empty list of steps."
	planRetry = notePrefix + "That is not a valid plan: %v. Send the plan again as JSON with a \"summary\" string and a \"steps\" list of strings."
)

// planFromReply handles a reply of plan mode that ends without calling
// propose_plan: the plan it describes is asked for again as structured
// output (Ollama's format), checked, and reviewed as if proposed. A reply
// that proposes no plan ends the run as an answer. It reports whether
// the run goes on.
func (r *run) planFromReply(turn int) (more bool, err error) {
	p, err := r.structuredPlan()
	if err != nil || p == nil {
		return false, err
	}
	v, text := r.decide(turn, p)
	switch v {
	case VerdictApprove:
		return true, nil
	case VerdictReject:
		r.record(api.Message{Role: "user", Content: notePrefix + text})
		return true, nil
	}
	return false, nil // kept for the user, or the review was interrupted
}

// structuredPlan asks for the plan of the last reply as JSON in a side
// request, and once more with the error when the answer is not a valid
// plan. It returns nil when the reply proposed no plan, or when the
// second answer is no better (with a warning). The request is the
// conversation's own, tools included, so that Ollama reuses the prompt it
// has cached; the format's grammar leaves the model no room for a call.
func (r *run) structuredPlan() (*Plan, error) {
	req := r.s.request()
	req.Format = planSchema
	msgs := append(slices.Clone(r.s.view()), api.Message{Role: "user", Content: planRequest})
	for attempt := 1; ; attempt++ {
		req.Messages = msgs
		text, err := r.ask(req, 2048)
		if err != nil {
			return nil, err
		}
		p, err := parsePlan(text)
		if err == nil {
			r.s.opts.Log.Debug().Int("attempt", attempt).Bool("plan", p != nil).Msg("plan asked for as structured output")
			return p, nil
		}
		r.s.opts.Log.Debug().Int("attempt", attempt).Err(err).Msg("structured plan did not validate")
		if attempt == 2 {
			r.emit(Warning{Text: "the model's plan could not be read (" + err.Error() + "); its reply stands as the answer"})
			return nil, nil
		}
		msgs = append(msgs, api.Message{Role: "assistant", Content: text},
			api.Message{Role: "user", Content: fmt.Sprintf(planRetry, err)})
	}
}

// parsePlan reads a plan sent as structured output: nil when it has no
// steps.
func parsePlan(text string) (*Plan, error) {
	var v struct {
		Summary *string   `json:"summary"`
		Steps   *[]string `json:"steps"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a JSON object of the schema: %v", err)
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object")
	}
	switch {
	case v.Steps == nil:
		return nil, errors.New(`"steps" is missing`)
	case len(*v.Steps) == 0:
		return nil, nil
	case v.Summary == nil:
		return nil, errors.New(`"summary" is missing`)
	}
	return newPlan(*v.Summary, *v.Steps)
}
