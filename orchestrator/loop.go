package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/orchestrator/provider"
	"lathe/prompts"
	"lathe/prompts/human"
)

// StopReason says why a run ended.
type StopReason string

const (
	StopDone        StopReason = "done"           // the model answered without calling tools
	StopMaxTurns    StopReason = "max_turns"      // the turn limit was reached
	StopToolBudget  StopReason = "tool_budget"    // the tool-call budget was used up
	StopTimeout     StopReason = "timeout"        // the wall-clock limit was reached
	StopRepetition  StopReason = "repetition"     // the model kept making the same call
	StopEmpty       StopReason = "empty_response" // the model gave empty replies
	StopInterrupted StopReason = "interrupted"    // the user cancelled
	StopPlanned     StopReason = "planned"        // plan mode proposed a plan, kept for the user to review
	StopHook        StopReason = "hook"           // a hook stopped the run (see Result.HookReason)
	StopError       StopReason = "error"          // a failure; see the error
)

// Limit reports whether the run was stopped by one of its limits.
func (r StopReason) Limit() bool {
	return r == StopMaxTurns || r == StopToolBudget || r == StopTimeout || r == StopRepetition || r == StopHook
}

// Result is how a run ended.
type Result struct {
	Text       string // the last reply's text: the answer when StopReason is done
	StopReason StopReason
	Turns      int
	ToolCalls  int
	Usage      Usage
	Duration   time.Duration
	Model      string
	// SessionID is the id of the session as saved, to be resumed; empty
	// when nothing was saved (no store, or the model was never reached).
	SessionID  string
	Recoveries Recoveries
	// Repeated is the call the model repeated, with StopRepetition.
	Repeated string
	// Mode is the session's mode when the run ended.
	Mode string
	// Plan is the plan proposed, with StopPlanned; otherwise the plan
	// build mode follows, its checklist as the run left it; nil for none.
	Plan *plan.Plan
	// Timing is where the run's time went, over its turns.
	Timing RunTiming
	// Images are the images sent to the model in the run: the prompt's,
	// and those tools read.
	Images []ImageInfo
	// HookReason is what the hook that stopped the run said, with
	// StopHook.
	HookReason string
}

// Usage counts tokens over a run, as the server reported them.
type Usage struct {
	PromptTokens     int // sum of the prompts' lengths
	CompletionTokens int // sum of the replies' lengths
}

var errTimeout = errors.New("the time limit for this request was reached")

// run is the state of one Run.
type run struct {
	s              *Session
	ctx            context.Context
	emit           func(Event)
	start          time.Time
	res            Result
	budgetSpent    bool
	repeats        *repetitions
	nudged         bool        // an empty reply got its nudge
	mu             sync.Mutex  // guards res while calls finish concurrently
	runID          int64       // the run's record in the store
	storeErr       atomic.Bool // the store failed; it is not written again (calls finish concurrently)
	recompacted    bool        // an overflow was met with a harder compaction
	change         *mode.Change
	planned        *plan.Plan // a plan kept for the user: the run ends with it
	created        bool       // the run created the session
	windowFull     bool       // a reply of the run filled the context window
	checkpointing  bool       // the run's file changes are kept (Options.Checkpoints)
	announceNudged bool       // the last reply was nudged for announcing a call it did not make
	droppedCalls   int        // the turn's calls past the per-turn limit dropped unread, after the one answered
	manualCompact  bool       // the compaction under way was asked for (/compact)
	// hookStopped: a hook said "continue": false; the run ends after the
	// turn under way (guarded by mu).
	hookStopped bool
	// stopHookActive: a Stop hook already sent the model back to work.
	stopHookActive bool
	background     sync.WaitGroup // Notification hooks
	lateMu         sync.Mutex
	over           bool // the run is over: background hooks tell nothing more
	// allow approves calls for this run alone (Prompt.Allow).
	allow Allowance
}

// Run sends prompt as the user's next message and runs the loop until the
// model answers without calling tools, a limit stops it, ctx is cancelled,
// or something fails. The error is non-nil only with StopError; a
// *BusyError when another operation is under way. emit receives every
// event, from one goroutine at a time.
func (s *Session) Run(ctx context.Context, prompt string, emit func(Event)) (Result, error) {
	return s.RunPrompt(ctx, Prompt{Text: prompt}, emit)
}

// RunPrompt is Run with the images attached to the prompt. Images for a
// model that cannot see them fail the run before anything is sent or
// saved (provider.ErrNoVision).
func (s *Session) RunPrompt(ctx context.Context, p Prompt, emit func(Event)) (res Result, err error) {
	prompt := p.Text
	if err := s.ops.begin(opRun); err != nil {
		snap := s.Snapshot()
		return Result{StopReason: StopError, SessionID: snap.SavedID(), Model: snap.Model.Name, Mode: snap.Mode}, err
	}
	defer s.end()
	emit, observed := s.observe(prompt, emit)
	defer func() { observed(res, err) }()
	fresh := s.model.Name == ""
	if p, err := s.prepare(ctx); err != nil {
		name := p.Model.Name
		if name == "" {
			name = s.opts.Config.Model
		}
		return Result{StopReason: StopError, SessionID: s.savedID(), Model: name, Mode: s.mode.Name()}, err
	}
	if len(p.Images) > 0 && !s.sees() {
		return Result{StopReason: StopError, SessionID: s.savedID(), Model: s.model.Name, Mode: s.mode.Name()}, s.noVision(ctx)
	}
	s.refreshFacts(ctx)
	lim := s.opts.Config.Limits
	if lim.Timeout.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, lim.Timeout.Duration, errTimeout)
		defer cancel()
	}
	var mu sync.Mutex
	r := &run{s: s, ctx: ctx, start: s.opts.Now(), emit: func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		emit(e)
	}, repeats: newRepetitions(lim.RepeatWarn, lim.RepeatStop), allow: p.Allow}
	r.res = Result{Model: s.model.Name}
	if fresh {
		for _, skipped := range s.model.Skipped {
			r.emit(Warning{Text: "passed over model " + skipped})
		}
		for _, note := range s.model.Notes {
			r.emit(Warning{Text: note})
		}
	}
	s.syncTools(ctx, s.length() == 0, true)
	if notes := s.takeNotes(); len(notes) > 0 {
		r.emit(ToolsChanged{Notes: notes})
	}
	for _, e := range s.takePending() {
		r.emit(e)
	}
	content, blocked := r.userPromptSubmit(prompt)
	if blocked {
		r.res.StopReason, r.res.Duration = StopHook, s.opts.Now().Sub(r.start)
		r.res.SessionID, r.res.Mode = s.savedID(), s.mode.Name()
		return r.res, nil
	}
	r.begin(prompt)
	if p.Expand != nil {
		content = r.expand(p) + content[len(prompt):] // what the hooks added stays after it
	}
	r.record(provider.Message{Role: "user", Content: content, Images: p.Images})
	if len(p.Images) > 0 {
		r.attached(0, "prompt", p.Images)
	}

	err = r.loop(lim.MaxTurns)
	r.res.Duration = s.opts.Now().Sub(r.start)
	if err != nil {
		r.res.StopReason = StopError
	}
	r.settle(err)
	r.res.SessionID = s.savedID()
	r.res.Mode, r.res.Plan = s.mode.Name(), mode.PlanOf(s.mode).Clone()
	if r.planned != nil {
		r.res.Plan = r.planned.Clone()
	}
	r.end(err)
	r.notify("run_finished", finished(r.res))
	r.awaitBackground()
	rec := r.res.Recoveries
	s.opts.Log.Debug().Int("turns", r.res.Turns).Int("tool_calls", r.res.ToolCalls).
		Str("stop_reason", string(r.res.StopReason)).Dur("duration_ms", r.res.Duration).
		Int("prompt_tokens", r.res.Usage.PromptTokens).Int("completion_tokens", r.res.Usage.CompletionTokens).
		Int("text_calls", rec.TextCalls).Int("tool_names", rec.ToolNames).Int("argument_repairs", rec.ArgumentRepairs).
		Int("think_leaks", rec.ThinkLeaks).Int("repetition_warnings", rec.RepetitionWarnings).
		Int("empty_nudges", rec.EmptyNudges).Int("announced_nudges", rec.AnnouncedNudges).Msg("run finished")
	return r.res, err
}

// loop runs turns until one of them ends the run, and sets the stop reason.
func (r *run) loop(maxTurns int) error {
	for {
		if r.res.Turns == maxTurns {
			r.res.StopReason = StopMaxTurns
			return nil
		}
		r.res.Turns++
		more, err := r.turn(r.res.Turns)
		switch {
		case r.ctx.Err() != nil && (err != nil || more):
			// Cancelled while streaming or running tools; a cancel that
			// lands after the final answer arrived changes nothing.
			r.res.StopReason = r.cancelReason()
			return nil
		case err != nil:
			return err
		case r.budgetSpent:
			r.res.StopReason = StopToolBudget
			return nil
		case r.repeats.stop != "":
			r.res.StopReason, r.res.Repeated = StopRepetition, r.repeats.stop
			return nil
		case r.res.StopReason == StopEmpty || r.res.StopReason == StopInterrupted:
			return nil
		case r.planned != nil:
			r.res.StopReason = StopPlanned
			return nil
		case r.stoppedByHook():
			r.res.StopReason = StopHook
			return nil
		case !more && r.stopHooks():
			continue // a Stop hook sent the model back to work
		case !more:
			r.res.StopReason = StopDone
			return nil
		}
	}
}

// settle leaves the history valid for the next request when the run ended
// before the model replied to the last user message (an interruption, a
// failure): an empty reply is recorded, as for a process that died, so
// that user and assistant messages keep alternating. A new session whose
// first request failed before any reply is not kept at all: nothing in it
// is worth resuming, and its prompt is the caller's to send again.
func (r *run) settle(err error) {
	s := r.s
	if s.messages[len(s.messages)-1].Role != "user" {
		return
	}
	if err != nil && r.created && s.length() == 1 {
		s.messages = s.messages[:1]
		if st := s.opts.Recorder; st != nil && !r.storeErr.Load() {
			if derr := st.Delete(r.storeCtx(), s.id); derr != nil {
				s.opts.Log.Error().Err(derr).Msg("session store failed")
			}
		}
		s.created, s.title, r.runID = false, "", 0
		s.win.Forget()
		return
	}
	r.recordNoReply()
}

// cancelReason tells a timeout from an interruption by the user.
func (r *run) cancelReason() StopReason {
	if errors.Is(context.Cause(r.ctx), errTimeout) {
		return StopTimeout
	}
	return StopInterrupted
}

// turn is one model call and the calls it asks for. It reports whether the
// model wants another turn (it called tools, or was nudged).
func (r *run) turn(n int) (more bool, err error) {
	s := r.s
	if err := r.maybeCompact(); err != nil {
		return false, err
	}
	view := s.win.View(s.messages)
	b := s.before(r.ctx)
	reading := s.win.Next(s.messages)
	if b.res != evicted {
		reading -= s.cache.expect(view, s.prefixOf(view))
	}
	r.emit(TurnStarted{Turn: n, Messages: len(view), Model: s.model.Name, Loading: b.res == evicted, Reading: max(reading, 0)})
	start := s.opts.Now()
	rep, err := s.stream(r.ctx, n, r.emit)
	if errors.Is(err, provider.ErrContextOverflow) && !r.recompacted {
		// The estimate was short: summarize harder, and try once more.
		r.recompacted = true
		if !rep.empty() { // the server's cache filled up mid-reply: what came of it goes
			r.emit(ReplyRewritten{Turn: n})
		}
		if cerr := r.recompact(rep.sent, err); cerr != nil {
			return false, cerr
		}
		rep, err = s.stream(r.ctx, n, r.emit)
	}
	replied := s.opts.Now().Sub(start)
	if errors.Is(err, provider.ErrContextOverflow) {
		err = s.overflow(r.ctx, err)
	}
	if err == nil {
		r.repair(n, rep)
	}
	if rep.done || !rep.empty() {
		// A completed reply is recorded even when empty, so that user and
		// assistant messages keep alternating as chat templates expect.
		r.recordReply(rep)
		s.win.Counted(rep.metrics, rep.sent, s.win.Base+len(s.messages))
	}
	s.reckonCut(rep)
	r.res.Text = rep.content.String()
	r.res.Usage.PromptTokens += rep.metrics.PromptTokens
	r.res.Usage.CompletionTokens += rep.metrics.CompletionTokens
	var timing Timing
	defer func() {
		// A turn whose reply was counted ends with its count, also when
		// the turn then fails: the turns' counts add up to the run's.
		if err != nil && (rep.done || rep.metrics.CompletionTokens > 0) {
			r.endTurn(n, rep, timing, start, replied, true)
		}
	}()
	if err != nil {
		return false, err
	}
	timing = r.afterReply(rep, b)
	full := rep.windowFull(s.model.NumCtx)
	switch {
	case full && r.windowFull:
		return false, provider.Errorf(provider.ErrContextOverflow, nil,
			"the model's replies keep filling the context window (%s tokens): it is probably repeating itself; "+
				"rephrase the request, or try another model", human.Thousands(s.model.NumCtx))
	case full:
		r.windowFull = true
		r.emit(Warning{Text: fmt.Sprintf("the reply filled the context window (%s tokens) and was cut off there",
			human.Thousands(s.model.NumCtx))})
	case rep.doneReason == "length":
		r.emit(Warning{Text: "the reply was cut off at the output limit (options.num_predict)"})
	}
	_, planning := s.mode.(mode.Plan)
	switch {
	case full && len(rep.calls) == 0:
		// Summarize it all, the cut reply included, and let the model go
		// on from the summary and the note.
		r.record(provider.Message{Role: "user", Content: prompts.WindowFull()})
		if err := r.compact(0, false); err != nil {
			return false, err
		}
		more = true
	case strings.TrimSpace(rep.content.String()) == "" && len(rep.calls) == 0:
		more = r.emptyReply()
	case len(rep.calls) == 0 && planning:
		if more, err = r.planFromReply(n); err != nil {
			return false, err
		}
	case len(rep.calls) == 0 && r.announced(rep.content.String()):
		more = true
	default:
		r.droppedCalls = rep.dropped
		if rep.dropped > 0 {
			r.warnDropped(len(rep.calls), rep.dropped)
		}
		var shown []provider.Image
		for _, c := range r.runCalls(n, rep.calls) {
			s.messages = append(s.messages, c.message())
			if img := c.result.Image; img != nil {
				shown = append(shown, *img)
			}
		}
		if len(shown) > 0 {
			r.show(n, shown)
		}
		more = len(rep.calls) > 0
	}
	if len(rep.calls) > 0 {
		r.announceNudged = false // "in a row" is broken by a call
	}
	if ch := r.change; ch != nil {
		r.change = nil
		if err := r.applyChange(ch); err != nil {
			return false, err
		}
		more = true
	}
	s.publish() // the count for the UI
	r.endTurn(n, rep, timing, start, replied, false)
	return more, nil
}

// warnDropped says, in one line, that of the reply's calls those past
// the first kept were dropped unread.
func (r *run) warnDropped(kept, dropped int) {
	last := "the last " + human.Thousands(dropped) + " were"
	if dropped == 1 {
		last = "the last one was"
	}
	r.emit(Warning{Text: fmt.Sprintf("the reply made %s tool calls, more than the %d a turn runs (limits.tool_calls_per_turn): %s dropped unread",
		human.Thousands(kept+dropped), r.s.opts.Config.Limits.ToolCallsPerTurn, last)})
}

// endTurn tells that turn n ended, with its reply's counts; replied is
// the time to the reply's end, before its calls ran; failed, that the
// turn ends the run in error.
func (r *run) endTurn(n int, rep *reply, timing Timing, start time.Time, replied time.Duration, failed bool) {
	d := r.s.opts.Now().Sub(start)
	r.emit(TurnFinished{Turn: n, Failed: failed, PromptTokens: rep.metrics.PromptTokens, CompletionTokens: rep.metrics.CompletionTokens,
		Duration: d, Reply: replied, EvalDuration: rep.metrics.EvalDuration, DoneReason: rep.doneReason, ToolCalls: len(rep.calls),
		Timing: timing})
	r.logTurn(n, len(rep.sent), rep, timing, d)
}

// repair fixes a complete reply before it enters the history: loosely
// written tool names, tool calls written as text, thinking left in the
// content.
func (r *run) repair(n int, rep *reply) {
	r.resolveNames(rep.calls)
	r.recoverTextCalls(n, rep)
	if rep.thinkLeak {
		r.res.Recoveries.ThinkLeaks++
		r.s.opts.Log.Debug().Int("turn", n).Msg("moved <think> text out of the answer")
	}
}

// announced nudges, in build mode, a reply that ends by announcing an
// action it made no call for, unless the turn before was nudged so; it
// reports whether it did.
func (r *run) announced(text string) bool {
	nudged := r.announceNudged
	r.announceNudged = false
	_, build := r.s.mode.(mode.Build)
	if !build || nudged || !r.s.opts.Config.Limits.NudgeAnnouncements || !announces(text) {
		return false
	}
	r.announceNudged = true
	r.res.Recoveries.AnnouncedNudges++
	r.record(provider.Message{Role: "user", Content: prompts.Announced()})
	r.s.opts.Log.Debug().Msg("a reply announced a call it did not make: nudged")
	return true
}

// emptyReply answers a reply with neither text nor calls: the first time
// with a nudge and another turn, the second time by stopping the run.
func (r *run) emptyReply() (more bool) {
	if r.nudged {
		r.res.StopReason = StopEmpty
		return false
	}
	r.nudged = true
	r.res.Recoveries.EmptyNudges++
	r.record(provider.Message{Role: "user", Content: prompts.Nudge()})
	r.s.opts.Log.Debug().Msg("empty reply: nudged")
	return true
}

func (r *run) logTurn(n, sent int, rep *reply, t Timing, d time.Duration) {
	ev := r.s.opts.Log.Debug().Int("turn", n).Int("messages", sent).
		Int("prompt_tokens", rep.metrics.PromptTokens).Int("completion_tokens", rep.metrics.CompletionTokens).
		Int("tool_calls", len(rep.calls)).Dur("duration_ms", d).Str("done_reason", rep.doneReason)
	if r := rep.metrics.DecodeRate(); r > 0 {
		ev = ev.Float64("tokens_per_s", math.Round(r*10)/10)
	}
	ev = ev.Dur("load_ms", t.Load).Dur("first_token_ms", t.FirstToken).Int("prefill_tokens", t.PrefillTokens).
		Int("cached_tokens", t.CachedTokens).Float64("prefill_tps", math.Round(t.PrefillRate)).
		Float64("decode_tps", math.Round(t.DecodeRate*10)/10).Bool("cache_miss", t.CacheMiss).Bool("reloaded", t.Reloaded)
	ev.Msg("turn")
}
