package trajectory

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"lathe/orchestrator"
)

// Options say what a Recorder records besides the events.
type Options struct {
	// Agent is the agent's name and version ("lathe", its version).
	Agent, Version string
	// Model is the model asked for; the turns' own replace it.
	Model string
	// Prompt is the user's request: the first step.
	Prompt string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Recorder builds a trajectory from a run's events: a user step for the
// prompt, then one agent step per turn (its text, reasoning, calls, their
// results and the turn's counts) and a system step for what lathe did
// between turns (a compaction, a change of mode). Its Event is safe to
// call from the goroutines that run calls.
type Recorder struct {
	opts     Options
	mu       sync.Mutex
	steps    []Step
	turns    map[int]int // turn → index of its step
	text     map[int]*strings.Builder
	thinking map[int]*strings.Builder
	warnings []string
	model    string
}

// NewRecorder starts a trajectory of a run of opts.Prompt.
func NewRecorder(opts Options) *Recorder {
	r := &Recorder{opts: opts, turns: map[int]int{}, text: map[int]*strings.Builder{},
		thinking: map[int]*strings.Builder{}, model: opts.Model}
	r.steps = append(r.steps, Step{Timestamp: r.stamp(), Source: SourceUser, Message: opts.Prompt})
	return r
}

func (r *Recorder) stamp() string {
	now := time.Now
	if r.opts.Now != nil {
		now = r.opts.Now
	}
	return now().UTC().Format(time.RFC3339Nano)
}

// Event records one event of the run.
func (r *Recorder) Event(ev orchestrator.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case orchestrator.TurnStarted:
		if e.Model != "" {
			r.model = e.Model
		}
		r.turns[e.Turn] = len(r.steps)
		r.steps = append(r.steps, Step{Timestamp: r.stamp(), Source: SourceAgent, ModelName: e.Model})
	case orchestrator.TextDelta:
		builder(r.text, e.Turn).WriteString(e.Text)
	case orchestrator.ThinkingDelta:
		builder(r.thinking, e.Turn).WriteString(e.Text)
	case orchestrator.ReplyRewritten:
		b := builder(r.text, e.Turn)
		b.Reset()
		b.WriteString(e.Content)
	case orchestrator.TurnFinished:
		if s := r.step(e.Turn); s != nil {
			s.Metrics = turnMetrics(e)
		}
	case orchestrator.ToolStarted:
		if s := r.step(e.Turn); s != nil {
			s.ToolCalls = append(s.ToolCalls, ToolCall{ToolCallID: callID(e.Turn, e.Index, e.ID),
				FunctionName: e.Name, Arguments: arguments(e.Args)})
		}
	case orchestrator.ToolFinished:
		r.finished(e)
	case orchestrator.Compacted:
		r.system(fmt.Sprintf("compacted: %d older messages summarized for the model (%d → %d tokens)",
			e.Summarized, e.Before, e.After), map[string]any{"event": "compacted"})
	case orchestrator.ModeChanged:
		r.system(fmt.Sprintf("%s mode → %s mode: %s", e.From, e.To, e.Reason),
			map[string]any{"event": "mode_changed", "from": e.From, "to": e.To})
	case orchestrator.Warning:
		r.warnings = append(r.warnings, e.Text)
	}
}

func builder(m map[int]*strings.Builder, turn int) *strings.Builder {
	b, ok := m[turn]
	if !ok {
		b = &strings.Builder{}
		m[turn] = b
	}
	return b
}

// step is the agent step of turn; nil for a turn not started.
func (r *Recorder) step(turn int) *Step {
	i, ok := r.turns[turn]
	if !ok {
		return nil
	}
	return &r.steps[i]
}

func (r *Recorder) system(msg string, extra map[string]any) {
	r.steps = append(r.steps, Step{Timestamp: r.stamp(), Source: SourceSystem, Message: msg, Extra: extra})
}

// finished records what a call returned, and how it went in the step's
// extra (the observation has no field for it).
func (r *Recorder) finished(e orchestrator.ToolFinished) {
	s := r.step(e.Turn)
	if s == nil {
		return
	}
	id := callID(e.Turn, e.Index, e.ID)
	if !hasCall(s.ToolCalls, id) {
		// A call answered without being started (dropped past a limit).
		s.ToolCalls = append(s.ToolCalls, ToolCall{ToolCallID: id, FunctionName: e.Name, Arguments: map[string]any{}})
	}
	if s.Observation == nil {
		s.Observation = &Observation{}
	}
	s.Observation.Results = append(s.Observation.Results, ObservationResult{SourceCallID: id, Content: e.Result.Content})
	if s.Extra == nil {
		s.Extra = map[string]any{}
	}
	outcomes, _ := s.Extra["tool_outcomes"].([]map[string]any)
	o := map[string]any{"tool_call_id": id, "outcome": string(e.Outcome), "duration_ms": e.Duration.Milliseconds()}
	if e.Result.Summary != "" {
		o["summary"] = e.Result.Summary
	}
	s.Extra["tool_outcomes"] = append(outcomes, o)
}

func hasCall(calls []ToolCall, id string) bool {
	for _, c := range calls {
		if c.ToolCallID == id {
			return true
		}
	}
	return false
}

// callID is a call's id: the server's, or one made from its turn and place
// (Ollama sends none), as ATIF wants one to tie the result to.
func callID(turn, index int, id string) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("call_%d_%d", turn, index)
}

// arguments are a call's arguments as an object; arguments that are not
// one (lathe refused the call for it) are kept as their text.
func arguments(args string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err == nil && m != nil {
		return m
	}
	if strings.TrimSpace(args) == "" {
		return map[string]any{}
	}
	return map[string]any{"_unparsed": args}
}

// turnMetrics are a turn's counts, with lathe's timings in extra.
func turnMetrics(e orchestrator.TurnFinished) *Metrics {
	t := e.Timing
	extra := map[string]any{
		"duration_ms":    e.Duration.Milliseconds(),
		"load_ms":        t.Load.Milliseconds(),
		"first_token_ms": t.FirstToken.Milliseconds(),
		"prefill_tokens": t.PrefillTokens,
		"prefill_tps":    round1(t.PrefillRate),
		"decode_tps":     round1(t.DecodeRate),
		"eval_ms":        e.EvalDuration.Milliseconds(),
	}
	if e.DoneReason != "" {
		extra["done_reason"] = e.DoneReason
	}
	if t.CacheMiss {
		extra["cache_miss"] = true
	}
	if t.Reloaded {
		extra["reloaded"] = true
	}
	return &Metrics{PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens,
		CachedTokens: min(t.CachedTokens, e.PromptTokens), Extra: extra}
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// Finish is the trajectory of the run that ended with res (failure is its
// error, if any).
func (r *Recorder) Finish(res orchestrator.Result, failure error) *Trajectory {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &Trajectory{SchemaVersion: Version, SessionID: res.SessionID,
		Agent: Agent{Name: r.opts.Agent, Version: r.opts.Version, ModelName: r.model}}
	if res.Model != "" {
		t.Agent.ModelName = res.Model
	}
	if t.SessionID == "" {
		// Nothing was saved; the run still needs an id of its own.
		t.SessionID = "unsaved-" + randomID()
	}
	fm := &FinalMetrics{}
	for i := range r.steps {
		s := &r.steps[i]
		s.StepID = i + 1
		if s.Source == SourceAgent {
			r.fillAgentStep(s, i)
		}
		if m := s.Metrics; m != nil {
			fm.TotalPromptTokens += m.PromptTokens
			fm.TotalCompletionTokens += m.CompletionTokens
			fm.TotalCachedTokens += m.CachedTokens
		}
	}
	t.Steps = append([]Step(nil), r.steps...)
	fm.TotalSteps = len(t.Steps)
	fm.Extra = runExtra(res)
	t.FinalMetrics = fm
	t.Extra = map[string]any{"stop_reason": string(res.StopReason), "turns": res.Turns, "tool_calls": res.ToolCalls,
		"duration_ms": res.Duration.Milliseconds()}
	if res.Mode != "" {
		t.Extra["mode"] = res.Mode
	}
	if failure != nil {
		t.Extra["error"] = failure.Error()
	}
	if len(r.warnings) > 0 {
		t.Extra["warnings"] = append([]string(nil), r.warnings...)
	}
	return t
}

// fillAgentStep sets the text and reasoning of the agent step at index i.
func (r *Recorder) fillAgentStep(s *Step, i int) {
	for turn, at := range r.turns {
		if at != i {
			continue
		}
		if b := r.text[turn]; b != nil {
			s.Message = b.String()
		}
		if b := r.thinking[turn]; b != nil {
			s.ReasoningContent = b.String()
		}
	}
}

// runExtra are lathe's figures of the whole run.
func runExtra(res orchestrator.Result) map[string]any {
	t := res.Timing
	return map[string]any{
		"load_ms":        t.Load.Milliseconds(),
		"first_token_ms": t.FirstToken.Milliseconds(),
		"prefill_ms":     t.PrefillTime().Milliseconds(),
		"decode_ms":      t.DecodeTime().Milliseconds(),
		"prefill_tokens": t.PrefillTokens,
		"prefill_tps":    round1(t.PrefillRate),
		"decode_tps":     round1(t.DecodeRate),
		"recoveries":     res.Recoveries.Total(),
	}
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
