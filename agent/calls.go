package agent

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"lathe/tools"
)

// callState is one tool call of a turn on its way to a result.
type callState struct {
	index    int
	seq      int // the result's position in the history
	call     api.ToolCall
	args     string
	tool     tools.Tool
	prepared tools.Call
	subject  string
	preview  string
	result   tools.Result
	outcome  Outcome
	duration time.Duration
	settled  bool // the result is known without running the tool
}

func (c *callState) settle(outcome Outcome, res tools.Result) {
	c.outcome, c.result, c.settled = outcome, res, true
}

// message is the call's result as it goes into the history.
func (c *callState) message() api.Message {
	return api.Message{Role: "tool", Content: c.result.Content, ToolName: c.call.Function.Name, ToolCallID: c.call.ID}
}

// runCalls handles the calls of one reply and returns them with their
// results, in call order. Calls over the per-turn or per-prompt limit are
// answered without running. Read-only calls next to each other run
// concurrently; a call that changes things is approved and run alone, so
// calls after it see its effect.
func (r *run) runCalls(turn int, calls []api.ToolCall) []*callState {
	states := make([]*callState, len(calls))
	first := len(r.s.messages) - 1 // the results follow the reply, after the system prompt
	brk, end := (*transition)(nil), len(calls)
	for i, c := range calls {
		if brk != nil {
			// A transition ends the turn: the calls after it are
			// answered without running (see below).
			states[i] = &callState{index: i, call: c, args: c.Function.Arguments.String()}
		} else {
			states[i] = r.prepare(i, c)
			if t, ok := asTransition(states[i].prepared); ok && !states[i].settled {
				brk, end = t, i
			}
		}
		states[i].seq = first + i
	}
	r.runAll(turn, states[:end])
	if brk != nil {
		r.transition(turn, states[end], brk)
		why := fmt.Sprintf(notRunTurnEnded, brk.tool)
		if r.change != nil {
			why = notRunModeChanged // they were meant for a mode no longer current
		}
		for _, st := range states[end+1:] {
			st.settle(OutcomeSkipped, tools.Errorf("skipped", why))
		}
		r.runAll(turn, states[end+1:])
	}
	return states
}

// runAll runs calls in order, read-only calls next to each other
// together.
func (r *run) runAll(turn int, states []*callState) {
	for i := 0; i < len(states); {
		j := i + 1
		if r.readOnly(states[i]) {
			for j < len(states) && r.readOnly(states[j]) {
				j++
			}
		}
		r.runBatch(turn, states[i:j])
		i = j
	}
}

// readOnly reports whether a call can run alongside others.
func (r *run) readOnly(c *callState) bool {
	// update_plan reads nothing but sets the checklist: alone, in call
	// order (so that nothing else touches the plan meanwhile).
	return c.settled || c.tool.ReadOnly() && c.call.Function.Name != "update_plan"
}

// prepare validates a call and applies the limits.
func (r *run) prepare(i int, c api.ToolCall) *callState {
	st := &callState{index: i, call: c, args: c.Function.Arguments.String()}
	lim := r.s.opts.Config.Limits
	switch {
	case i >= lim.ToolCallsPerTurn:
		st.settle(OutcomeSkipped, tools.Errorf("skipped", fmt.Sprintf(
			"not run: at most %d tool calls run per turn; make this call again in your next turn", lim.ToolCallsPerTurn)))
		return st
	case r.res.ToolCalls >= lim.ToolCallsPerPrompt:
		r.budgetSpent = true
		st.settle(OutcomeSkipped, tools.Errorf("skipped", fmt.Sprintf(
			"not run: the budget of %d tool calls for this request is used up", lim.ToolCallsPerPrompt)))
		return st
	}
	r.res.ToolCalls++
	tool, ok := r.s.tools.Lookup(c.Function.Name)
	switch {
	case !ok && r.s.known(c.Function.Name):
		st.settle(OutcomeDenied, tools.Errorf("not in "+r.s.mode.Name()+" mode", r.s.notInMode(c.Function.Name)))
		return st
	case !ok:
		st.settle(OutcomeFailed, tools.Errorf("unknown tool", r.s.tools.UnknownToolError(c.Function.Name)))
		return st
	}
	st.tool = tool
	prepared, err := tool.Prepare(json.RawMessage(st.args))
	if err != nil {
		st.settle(OutcomeFailed, tools.Errorf("invalid arguments", err.Error()))
		return st
	}
	st.prepared, st.subject = prepared, prepared.Subject()
	return st
}

// runBatch runs calls that may run together: several read-only calls, or a
// single call that changes things.
func (r *run) runBatch(turn int, batch []*callState) {
	var wg sync.WaitGroup
	for _, c := range batch {
		if !c.settled && !c.tool.ReadOnly() {
			// Now, after every earlier call of the turn has run, so that
			// the diff is the change this call will make.
			if diff, ok, err := tools.Preview(c.prepared); ok && err == nil {
				c.preview = diff
			}
		}
		r.emit(ToolStarted{Turn: turn, Index: c.index, ID: c.call.ID, Name: c.call.Function.Name, Args: c.args,
			Subject: c.subject, Preview: c.preview})
		if c.settled {
			r.finish(turn, c)
			continue
		}
		wg.Go(func() {
			r.execute(c)
			r.finish(turn, c)
		})
	}
	wg.Wait()
}

// execute approves (when needed) and runs one prepared call.
func (r *run) execute(c *callState) {
	ctx := r.ctx
	if ctx.Err() != nil {
		c.settle(OutcomeInterrupted, tools.Errorf("interrupted", "not run: the user interrupted the request"))
		return
	}
	if !c.tool.ReadOnly() {
		d, err := r.s.opts.Approver.Approve(ctx, ApprovalRequest{Tool: c.call.Function.Name, Subject: c.subject,
			Args: c.args, Preview: c.preview, Call: c.prepared})
		if err != nil || ctx.Err() != nil {
			c.settle(OutcomeInterrupted, tools.Errorf("interrupted", "not run: the user interrupted the request"))
			return
		}
		if !d.Allow {
			c.settle(OutcomeDenied, denied(d.Reason))
			return
		}
	}
	start := r.s.opts.Now()
	res, err := c.prepared.Run(ctx)
	c.duration = r.s.opts.Now().Sub(start)
	switch {
	case ctx.Err() != nil:
		res.Content = "interrupted: the user stopped this call before it finished\n" + res.Content
		res.IsError, res.Summary = true, "interrupted"
		c.outcome = OutcomeInterrupted
	case err != nil:
		r.s.opts.Log.Warn().Err(err).Str("tool", c.call.Function.Name).Msg("tool failed")
		res = tools.Errorf("failed", err.Error())
		c.outcome = OutcomeFailed
	case res.IsError:
		c.outcome = OutcomeFailed
	default:
		c.outcome = OutcomeOK
	}
	c.result = res
}

func denied(reason string) tools.Result {
	msg := "denied: the user did not allow this call"
	if reason != "" {
		msg += ": " + reason
	}
	return tools.Result{Content: msg, IsError: true, Summary: "denied"}
}

// finish reports a call's result, with a note when the model keeps
// repeating it.
func (r *run) finish(turn int, c *callState) {
	warned := false
	if c.outcome != OutcomeSkipped && c.outcome != OutcomeInterrupted {
		if note := r.repeats.record(c.call.Function.Name, c.args, c.result.Content, c.subject); note != "" {
			c.result.Content += note
			warned = true
		}
	}
	r.count(warned, len(c.result.Repairs))
	c.result.Content = r.s.cutResult(c.result.Content)
	r.save(StoredMessage{Seq: c.seq, Message: c.message(),
		Tool: &ToolMeta{Subject: c.subject, Outcome: c.outcome, Summary: c.result.Summary, Duration: c.duration}})
	r.emit(ToolFinished{Turn: turn, Index: c.index, ID: c.call.ID, Name: c.call.Function.Name,
		Subject: c.subject, Result: c.result, Outcome: c.outcome, Duration: c.duration})
	if c.call.Function.Name == "update_plan" && c.outcome == OutcomeOK {
		r.planUpdated()
	}
	r.s.opts.Log.Debug().Int("turn", turn).Str("tool", c.call.Function.Name).Str("args", abbreviate(c.args, 160)).
		Dur("duration_ms", c.duration).Str("outcome", string(c.outcome)).Str("summary", c.result.Summary).
		Strs("repairs", c.result.Repairs).Msg("tool call")
}

// count adds a call's repetition warning and repairs to the run's
// summary; calls finish concurrently.
func (r *run) count(warned bool, repairs int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if warned {
		r.res.Recoveries.RepetitionWarnings++
	}
	r.res.Recoveries.ArgumentRepairs += repairs
}

// abbreviate cuts s to about n bytes for logs.
func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + fmt.Sprintf("…(%d bytes)", len(s))
}
