package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"lathe/orchestrator/hooks"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider"
	"lathe/prompts"
	"lathe/prompts/human"
	"lathe/tools"
)

// Hooks runs the user's commands at a session's events (see package
// hooks); *hooks.Runner is one. The loop decides what their outcome
// means; it never sees a process.
type Hooks interface {
	// Has reports whether any hook may run at event.
	Has(event string) bool
	// Run runs the hooks of in.Event that match it.
	Run(ctx context.Context, in hooks.Input) hooks.Outcome
}

var _ Hooks = (*hooks.Runner)(nil)

// HookRan: hooks ran at an event. For a call's events, Turn and Index
// name the call (Index is -1 otherwise), and its ToolFinished carries
// the same outcome in a line or two (HookNotes).
type HookRan struct {
	Event       string
	Turn, Index int
	Tool        string
	Outcome     hooks.Outcome
}

func (HookRan) isEvent() {}

// Result says what the hooks did, in a word: "blocked", "stopped",
// "failed" (one of them went wrong, which blocks nothing) or "ok".
func (e HookRan) Result() string {
	switch {
	case e.Outcome.Stop:
		return "stopped"
	case e.Outcome.Block:
		return "blocked"
	}
	for _, r := range e.Outcome.Runs {
		if r.Problem != "" {
			return "failed"
		}
	}
	return "ok"
}

// hooksOn reports whether any hook may run at event.
func (s *Session) hooksOn(event string) bool {
	return s.opts.Hooks != nil && s.opts.Hooks.Has(event)
}

// runHooks runs the hooks of in.Event with the session's part of the
// input filled in, and tells what went wrong with them (once per hook:
// see hooks.Run.Warn).
func (s *Session) runHooks(ctx context.Context, in hooks.Input, turn, index int, emit func(Event)) hooks.Outcome {
	in.SessionID, in.Cwd, in.PermissionMode = s.id, s.opts.Dir, s.permissionMode()
	in.TranscriptPath = s.writeTranscript(ctx)
	o := s.opts.Hooks.Run(ctx, in)
	if !o.Ran() {
		return o
	}
	emit(HookRan{Event: in.Event, Turn: turn, Index: index, Tool: in.ToolName, Outcome: o})
	for _, r := range o.Runs {
		if r.Warn {
			emit(Warning{Text: fmt.Sprintf("the %s hook %q %s (it blocks nothing; the run goes on)",
				in.Event, human.Line(r.Hook.Command, 60), r.Problem)})
		}
	}
	return o
}

// permissionMode is the session's mode as Claude Code's hooks know it.
func (s *Session) permissionMode() string {
	switch {
	case s.opts.Config.Approval.All:
		return "bypassPermissions"
	case s.planning():
		return "plan"
	}
	return "default"
}

// hookNotes are the lines a call's card shows of its hooks: a block, what
// they printed, what went wrong.
func hookNotes(event string, o hooks.Outcome) []string {
	var out []string
	for _, r := range o.Runs {
		switch {
		case r.Status == hooks.StatusBlocked:
			out = append(out, event+" hook blocked it: "+firstLine(cmpOr(r.Output, o.Reason, "no reason given")))
		case r.Problem != "":
			out = append(out, event+" hook "+r.Problem)
		case r.Output != "":
			out = append(out, event+" hook: "+firstLine(r.Output))
		}
	}
	if o.UpdatedInput != nil {
		out = append(out, event+" hook changed the arguments")
	}
	return out
}

func cmpOr(s ...string) string {
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func firstLine(s string) string {
	line, rest, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if rest != "" {
		line += " …"
	}
	return line
}

// hookCall is what PreToolUse and PostToolUse hooks are told of a call.
func (c *callState) hookInput(event string) hooks.Input {
	in := hooks.Input{Event: event, ToolName: c.call.Name, ToolInput: []byte(c.args), ToolUseID: c.call.ID}
	if c.tool != nil {
		in.Aliases = tools.Aliases(c.tool)
	}
	if origin, external := tools.AsOrigin(c.prepared); external {
		in.Server, in.ServerTool, in.ToolName = origin.Origin()
		in.ToolInput = origin.Arguments()
	}
	return in
}

// preToolUse runs the PreToolUse hooks of the batch's calls that are to
// run, together, before any is shown: a deny settles its call, an
// updated input prepares it again, an allow or an ask is kept for its
// approval.
func (r *run) preToolUse(turn int, batch []*callState) {
	if !r.s.hooksOn(hooks.PreToolUse) {
		return
	}
	var wg sync.WaitGroup
	for _, c := range batch {
		if c.settled {
			continue
		}
		wg.Go(func() {
			o := r.s.runHooks(r.ctx, c.hookInput(hooks.PreToolUse), turn, c.index, r.emit)
			r.applyPre(c, o)
		})
	}
	wg.Wait()
}

// applyPre applies what PreToolUse hooks decided of c.
func (r *run) applyPre(c *callState, o hooks.Outcome) {
	c.hookNotes = append(c.hookNotes, hookNotes(hooks.PreToolUse, o)...)
	switch {
	case o.Stop:
		r.stopByHook(o.StopReason)
		c.settle(OutcomeSkipped, tools.Errorf("stopped by a hook", prompts.HookStopped()))
		return
	case o.Block:
		c.settle(OutcomeDenied, tools.Result{Content: prompts.HookBlocked(o.Reason), IsError: true, Summary: "blocked by a hook"})
		return
	}
	if o.UpdatedInput != nil {
		args := hooks.ApplyInput(c.args, o.UpdatedInput)
		prepared, err := c.tool.Prepare([]byte(args))
		if err != nil {
			c.settle(OutcomeFailed, tools.Errorf("invalid arguments from a hook", prompts.HookBadInput(err.Error())))
			return
		}
		c.args, c.prepared, c.subject = args, prepared, prepared.Subject()
		c.kind = tools.CallKind(prepared, c.tool.Kind())
	}
	c.permission = o.Permission
}

// postToolUse runs the PostToolUse hooks of a call that ran: what they
// object to, and the context they add, follow its result for the model.
func (r *run) postToolUse(turn int, c *callState) {
	if !r.s.hooksOn(hooks.PostToolUse) {
		return
	}
	in := c.hookInput(hooks.PostToolUse)
	in.ToolResponse = &hooks.ToolResponse{Content: c.result.Content, IsError: c.result.IsError, Summary: c.result.Summary}
	o := r.s.runHooks(r.ctx, in, turn, c.index, r.emit)
	c.hookNotes = append(c.hookNotes, hookNotes(hooks.PostToolUse, o)...)
	if o.Block {
		c.result.Content += prompts.HookFeedback(cmpOr(o.Reason, "the call's result is not acceptable"))
	}
	if len(o.Context) > 0 {
		c.result.Content += "\n\n" + prompts.HookContext(o.Context)
	}
	if o.Stop {
		r.stopByHook(o.StopReason)
	}
}

// stopByHook ends the run after the turn under way, as a hook asked.
func (r *run) stopByHook(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.hookStopped {
		r.hookStopped, r.res.HookReason = true, cmpOr(reason, "a hook stopped the request")
	}
}

// userPromptSubmit runs the UserPromptSubmit hooks on the prompt: it
// returns the prompt with the context they add, and whether they blocked
// it (the reason is then in the result).
func (r *run) userPromptSubmit(prompt string) (string, bool) {
	if !r.s.hooksOn(hooks.UserPromptSubmit) {
		return prompt, false
	}
	o := r.s.runHooks(r.ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: prompt}, 0, -1, r.emit)
	switch {
	case o.Block:
		r.res.HookReason = cmpOr(o.Reason, "a UserPromptSubmit hook blocked the prompt")
		return prompt, true
	case o.Stop:
		r.res.HookReason = cmpOr(o.StopReason, "a UserPromptSubmit hook stopped the request")
		return prompt, true
	case len(o.Context) > 0:
		return prompt + "\n\n" + prompts.HookContext(o.Context), false
	}
	return prompt, false
}

// stopHooks runs the Stop hooks when the model answered: it reports
// whether one sent the model back to work (the run then goes on, to its
// turn limit at most).
func (r *run) stopHooks() bool {
	if !r.s.hooksOn(hooks.Stop) {
		return false
	}
	o := r.s.runHooks(r.ctx, hooks.Input{Event: hooks.Stop, StopHookActive: r.stopHookActive}, r.res.Turns, -1, r.emit)
	switch {
	case o.Stop:
		r.stopByHook(o.StopReason)
		return false
	case !o.Block:
		return false
	}
	r.stopHookActive = true
	r.record(provider.Message{Role: "user", Content: prompts.HookGoOn(o.Reason)})
	r.s.opts.Log.Debug().Str("reason", o.Reason).Msg("a Stop hook sent the model back to work")
	return true
}

// preCompact runs the PreCompact hooks before the conversation is
// summarized: they are told, and cannot stop it.
func (r *run) preCompact(manual bool) {
	if !r.s.hooksOn(hooks.PreCompact) {
		return
	}
	trigger := "auto"
	if manual {
		trigger = "manual"
	}
	r.s.runHooks(r.ctx, hooks.Input{Event: hooks.PreCompact, Trigger: trigger}, 0, -1, r.emit)
}

// notify runs the Notification hooks in the background (the run does not
// wait for them but at its end): kind is "permission_prompt" or
// "run_finished".
func (r *run) notify(kind, message string) {
	if !r.s.hooksOn(hooks.Notification) {
		return
	}
	r.background.Go(func() {
		r.s.runHooks(context.WithoutCancel(r.ctx), hooks.Input{Event: hooks.Notification, NotificationType: kind,
			Message: message}, 0, -1, r.emitLate)
	})
}

// sessionStart runs the SessionStart hooks (source: startup, resume or
// clear); what they print goes into the system prompt, which is
// rendered after. What they did is told at the next run.
func (s *Session) sessionStart(ctx context.Context, source string) {
	s.opts.Env.HookContext = ""
	if !s.hooksOn(hooks.SessionStart) {
		return
	}
	o := s.runHooks(ctx, hooks.Input{Event: hooks.SessionStart, Source: source}, 0, -1, s.later)
	s.opts.Env.HookContext = strings.Join(o.Context, "\n\n")
}

// later keeps an event to tell at the start of the next run: what
// happened while no run was under way to tell it.
func (s *Session) later(e Event) {
	s.laterMu.Lock()
	defer s.laterMu.Unlock()
	s.pending = append(s.pending, e)
}

// takePending returns the events kept for the next run.
func (s *Session) takePending() []Event {
	s.laterMu.Lock()
	defer s.laterMu.Unlock()
	p := s.pending
	s.pending = nil
	return p
}

// End runs the SessionEnd hooks of a session that started (reason:
// "prompt_input_exit" when the UI is left, "other" after a one-shot run),
// waiting at most for their time limits; what they did goes to emit, or
// nowhere when it is nil. It may be called while an operation is still
// under way: then the hooks get the transcript as the last hook saw it,
// and otherwise the whole conversation.
func (s *Session) End(ctx context.Context, reason string, emit func(Event)) {
	if !s.hooksOn(hooks.SessionEnd) {
		return
	}
	if emit == nil {
		emit = func(Event) {}
	}
	if err := s.ops.begin(opEnding); err == nil {
		s.writeTranscript(ctx)
		s.ops.end()
	}
	s.endHooks(ctx, reason, s.Snapshot().ID, emit)
}

// writeTranscript brings the conversation's transcript up to date for
// the hooks and returns its path; "" when there is none to write, before
// the system prompt (SessionStart) or without transcripts. Only an
// operation calls it.
func (s *Session) writeTranscript(ctx context.Context) string {
	if t := s.opts.Transcripts; t != nil && len(s.messages) > 0 {
		return t.WriteFrom(s.id, s.opts.Dir, s.win.Base, s.messages[1:], s.older(ctx))
	}
	return ""
}

// endHooks runs the SessionEnd hooks of the session id.
func (s *Session) endHooks(ctx context.Context, reason, id string, emit func(Event)) {
	in := hooks.Input{Event: hooks.SessionEnd, Reason: reason, SessionID: id}
	in.Cwd, in.PermissionMode = s.opts.Dir, s.permissionMode()
	in.TranscriptPath = s.opts.Transcripts.Path(id)
	o := s.opts.Hooks.Run(ctx, in)
	if o.Ran() {
		emit(HookRan{Event: hooks.SessionEnd, Index: -1, Outcome: o})
	}
}

// finished says, for the Notification hooks, how a run ended.
func finished(res Result) string {
	if res.StopReason == StopDone {
		return "lathe finished the request"
	}
	return "lathe stopped: " + string(res.StopReason)
}

// waitHooks bounds how long the end of a run waits for Notification
// hooks still running.
const waitHooks = 5 * time.Second

// awaitBackground waits for the run's background hooks, for a while;
// what those still running do afterwards is not told.
func (r *run) awaitBackground() {
	done := make(chan struct{})
	go func() {
		r.background.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(waitHooks):
	}
	r.lateMu.Lock()
	r.over = true
	r.lateMu.Unlock()
}

// emitLate emits e from a background hook, unless the run is over.
func (r *run) emitLate(e Event) {
	r.lateMu.Lock()
	defer r.lateMu.Unlock()
	if !r.over {
		r.emit(e)
	}
}

// planning reports whether the session is in plan mode.
func (s *Session) planning() bool {
	_, ok := s.mode.(mode.Plan)
	return ok
}

// stoppedByHook reports whether a hook asked to end the run.
func (r *run) stoppedByHook() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hookStopped
}
