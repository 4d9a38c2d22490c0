package orchestrator

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"lathe/orchestrator/hooks"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
)

// callState is one tool call of a turn on its way to a result.
type callState struct {
	index    int
	seq      int // the result's position in the history
	call     provider.ToolCall
	args     string
	tool     tools.Tool
	kind     tools.Kind
	prepared tools.Call
	subject  string
	preview  string
	result   tools.Result
	outcome  Outcome
	duration time.Duration
	waited   time.Duration // for approval
	settled  bool          // the result is known without running the tool
	// notApproved: the Approver denied the call.
	notApproved bool
	// permission is what PreToolUse hooks decided: "", hooks.Allow (no
	// question asked) or hooks.Ask (asked whatever grants say).
	permission string
	// hookNotes are the lines its card shows of its hooks.
	hookNotes []string
}

func (c *callState) settle(outcome Outcome, res tools.Result) {
	c.outcome, c.result, c.settled = outcome, res, true
}

// message is the call's result as it goes into the history.
func (c *callState) message() provider.Message {
	return provider.Message{Role: "tool", Content: c.result.Content, Images: c.result.Images,
		ToolName: c.call.Name, ToolCallID: c.call.ID}
}

// runCalls handles the calls of one reply and returns them with their
// results, in call order. Calls over the per-turn or per-prompt limit are
// answered without running. Calls that only read, next to each other, run
// concurrently; any other call runs alone (approved first when its kind
// asks), so calls after it see its effect.
func (r *run) runCalls(turn int, calls []provider.ToolCall) []*callState {
	states := make([]*callState, len(calls))
	first := r.s.length() // the results follow the reply
	brk, end := (*mode.Transition)(nil), len(calls)
	for i, c := range calls {
		if brk != nil {
			// A transition ends the turn: the calls after it are
			// answered without running (see below).
			states[i] = &callState{index: i, call: c, args: c.Args()}
		} else {
			states[i] = r.prepare(i, c)
			if t, ok := mode.AsTransition(states[i].prepared); ok && !states[i].settled {
				brk, end = t, i
			}
		}
		states[i].seq = first + i
	}
	r.runAll(turn, states[:end])
	if brk != nil {
		r.transition(turn, states[end], brk)
		why := prompts.NotRunTurnEnded(brk.Tool())
		if r.change != nil {
			why = prompts.NotRunModeChanged() // they were meant for a mode no longer current
		}
		for _, st := range states[end+1:] {
			st.settle(OutcomeSkipped, tools.Errorf("skipped", why))
		}
		r.runAll(turn, states[end+1:])
	}
	return states
}

// runAll runs calls in order, concurrent ones next to each other together.
func (r *run) runAll(turn int, states []*callState) {
	for i := 0; i < len(states); {
		j := i + 1
		if states[i].concurrent() {
			for j < len(states) && states[j].concurrent() {
				j++
			}
		}
		r.runBatch(turn, states[i:j])
		i = j
	}
}

// concurrent reports whether a call can run alongside others.
func (c *callState) concurrent() bool { return c.settled || c.kind.Concurrent() }

// prepare validates a call and applies the limits.
func (r *run) prepare(i int, c provider.ToolCall) *callState {
	st := &callState{index: i, call: c, args: c.Args()}
	lim := r.s.opts.Config.Limits
	switch {
	case i >= lim.ToolCallsPerTurn:
		why := prompts.TooManyCalls(lim.ToolCallsPerTurn)
		if i == lim.ToolCallsPerTurn && r.droppedCalls > 0 {
			why += prompts.CallsDropped(r.droppedCalls)
		}
		st.settle(OutcomeSkipped, tools.Errorf("skipped", why))
		return st
	case r.res.ToolCalls >= lim.ToolCallsPerPrompt:
		r.budgetSpent = true
		st.settle(OutcomeSkipped, tools.Errorf("skipped", prompts.BudgetSpent(lim.ToolCallsPerPrompt)))
		return st
	}
	r.res.ToolCalls++
	tool, ok := r.s.tools.Lookup(c.Name)
	if !ok {
		if known, isKnown := r.s.every.Lookup(c.Name); isKnown {
			st.kind = known.Kind()
			st.settle(OutcomeDenied, tools.Errorf("not in "+r.s.mode.Name()+" mode", mode.Refusal(r.s.mode, c.Name, r.s.tools)))
			return st
		}
		st.settle(OutcomeFailed, tools.Errorf("unknown tool", prompts.UnknownTool(c.Name, r.s.tools.Names())))
		return st
	}
	st.tool, st.kind = tool, tool.Kind()
	prepared, err := tool.Prepare(json.RawMessage(st.args))
	if refused := (*tools.RefusedError)(nil); errors.As(err, &refused) {
		st.subject = refused.Subject
		st.settle(OutcomeFailed, tools.Errorf("refused", err.Error()))
		return st
	}
	if err != nil {
		st.settle(OutcomeFailed, tools.Errorf("invalid arguments", err.Error()))
		return st
	}
	// A call made through another tool (mcp_call) has its target's kind.
	st.prepared, st.subject, st.kind = prepared, prepared.Subject(), tools.CallKind(prepared, st.kind)
	return st
}

// runBatch runs calls that may run together: several calls that only
// read, or a single call of another kind.
func (r *run) runBatch(turn int, batch []*callState) {
	r.preToolUse(turn, batch)
	var wg sync.WaitGroup
	for _, c := range batch {
		if !c.settled && c.kind == tools.KindWrite && r.s.opts.Previews {
			// Now, after every earlier call of the turn has run, so that
			// the diff is the change this call will make. A call that
			// cannot succeed fails now: the user is not asked about it.
			diff, ok, err := tools.Preview(c.prepared)
			if res, fails := tools.WouldFail(err); fails {
				c.settle(OutcomeFailed, res)
			} else if ok && err == nil {
				c.preview = diff
			}
		}
		r.emit(ToolStarted{Turn: turn, Index: c.index, ID: c.call.ID, Name: c.call.Name, Kind: c.kind, Args: c.args,
			Subject: c.subject, Preview: c.preview, Call: c.prepared})
		if c.settled {
			r.finish(turn, c)
			continue
		}
		wg.Go(func() {
			r.execute(turn, c)
			r.finish(turn, c)
		})
	}
	wg.Wait()
}

// execute approves (when its kind asks) and runs one prepared call.
func (r *run) execute(turn int, c *callState) {
	ctx := r.ctx
	if ctx.Err() != nil {
		c.settle(OutcomeInterrupted, tools.Errorf("interrupted", prompts.NotRunInterrupted()))
		return
	}
	origin, external := tools.AsOrigin(c.prepared)
	sb, sandboxed := tools.AsSandboxed(c.prepared)
	sandboxed = sandboxed && sb.Confined()
	ask := c.kind.NeedsApproval() && !(external && origin.Preapproved())
	switch c.permission {
	case hooks.Allow:
		ask = false // the hook's say: the call still runs in the sandbox
	case hooks.Ask:
		ask = true
	}
	if ask && !r.approve(c, sb, sandboxed) {
		return
	}
	start := r.s.opts.Now()
	res, err := c.prepared.Run(ctx, tools.Caller{Session: r.s.id,
		Progress: func(text string) { r.emit(ToolProgress{Turn: turn, Index: c.index, Text: text}) }})
	c.duration = r.s.opts.Now().Sub(start)
	if sandboxed {
		r.s.blocked.record(c.subject, res.Blocked)
	}
	switch {
	case ctx.Err() != nil:
		res.Content = prompts.StoppedMidway() + "\n" + res.Content
		res.IsError, res.Summary = true, "interrupted"
		c.outcome = OutcomeInterrupted
	case err != nil:
		r.s.opts.Log.Warn().Err(err).Str("tool", c.call.Name).Msg("tool failed")
		res = tools.Errorf("failed", err.Error())
		c.outcome = OutcomeFailed
	case res.IsError:
		c.outcome = OutcomeFailed
	default:
		c.outcome = OutcomeOK
	}
	c.result = res
	if c.outcome == OutcomeOK || c.outcome == OutcomeFailed {
		r.postToolUse(turn, c)
	}
}

// approve asks the Approver whether c may run, and lifts what it says of
// the sandbox for a call that runs in it (sb). It reports false, with c
// settled, when c may not run.
func (r *run) approve(c *callState, sb tools.Sandboxed, sandboxed bool) bool {
	ctx := r.ctx
	req := ApprovalRequest{Tool: c.call.Name, Kind: c.kind, Subject: c.subject,
		Args: c.args, Preview: c.preview, Call: c.prepared, Sandboxed: sandboxed, Ask: c.permission == hooks.Ask}
	if sandboxed {
		req.Blocked = r.s.blocked.of(c.subject)
	}
	if origin, external := tools.AsOrigin(c.prepared); external {
		// What will be sent, to whom: a grant covers the tool it names.
		req.Server, req.ServerTool, req.Tool = origin.Origin()
		req.Args = string(origin.Arguments())
	}
	if cp := r.s.opts.Checkpoints; cp != nil && r.checkpointing && c.kind == tools.KindWrite {
		req.Note = cp.Note(c.subject)
	}
	if r.allow.approves(req, r.s.opts.Approver) {
		r.s.opts.Log.Debug().Str("tool", c.call.Name).Str("subject", abbreviate(c.subject, 160)).
			Msg("approved by the request's allowed tools")
		return true
	}
	if rules, ok := r.s.opts.Approver.(Rules); ok && rules.asksPerson(req) {
		r.notify("permission_prompt", "lathe needs your approval to run "+c.call.Name)
	}
	asked := r.s.opts.Now()
	d, err := r.s.opts.Approver.Approve(ctx, req)
	c.waited = r.s.opts.Now().Sub(asked)
	if err != nil || ctx.Err() != nil {
		c.settle(OutcomeInterrupted, tools.Errorf("interrupted", prompts.NotRunInterrupted()))
		return false
	}
	if !d.Allow {
		c.settle(OutcomeDenied, tools.Result{Content: prompts.Denied(d.Reason), IsError: true, Summary: "denied"})
		c.notApproved = true
		return false
	}
	if sandboxed && d.Escalation != (tools.Escalation{}) {
		sb.Escalate(d.Escalation)
		r.s.opts.Log.Info().Str("tool", c.call.Name).Str("command", c.subject).
			Bool("unconfined", d.Escalation.Unconfined).Bool("network", d.Escalation.Network).
			Msg("sandbox lifted for one call, as the user chose")
	}
	return true
}

// finish reports a call's result, with a note when the model keeps
// repeating it.
func (r *run) finish(turn int, c *callState) {
	warned := false
	if c.outcome != OutcomeSkipped && c.outcome != OutcomeInterrupted {
		if note := r.repeats.record(c.call.Name, c.args, c.result.Content, c.subject); note != "" {
			c.result.Content += note
			warned = true
		}
	}
	r.count(warned, len(c.result.Repairs))
	if img := c.result.Image; img != nil && !r.s.sees() {
		c.result.Content, c.result.Image = prompts.ImageUnseen(c.subject, img.Width, img.Height), nil
	}
	c.result.Content = r.s.win.CutResult(c.result.Content)
	if !r.s.model.Lists("vision") {
		c.result.Images = nil // named in the text; a model that cannot see gets only that
	}
	r.save(session.Message{Seq: c.seq, Message: c.message(),
		Tool: &session.ToolMeta{Subject: c.subject, Outcome: string(c.outcome), Summary: c.result.Summary, Duration: c.duration,
			Diff: c.preview}})
	r.emit(ToolFinished{Turn: turn, Index: c.index, ID: c.call.ID, Name: c.call.Name, Kind: c.kind,
		Subject: c.subject, Result: c.result, Outcome: c.outcome, Duration: c.duration, Waited: c.waited,
		NotApproved: c.notApproved, HookNotes: c.hookNotes})
	if c.kind == tools.KindUI && c.outcome == OutcomeOK {
		r.shown()
	}
	r.s.opts.Log.Debug().Int("turn", turn).Str("tool", c.call.Name).Str("args", abbreviate(c.args, 160)).
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
