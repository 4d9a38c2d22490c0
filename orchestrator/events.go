package orchestrator

import (
	"time"

	"lathe/orchestrator/plan"
	"lathe/prompts/human"
	"lathe/tools"
)

// Event is something that happened during a run. The TUI and the headless
// printers are two consumers of the same events; the agent knows
// nothing of how they are shown.
type Event interface{ isEvent() }

// TurnStarted: a request is about to be sent to the model.
type TurnStarted struct {
	Turn     int
	Messages int // messages in the request, system prompt included
	Model    string
	// Loading says the model is not in memory: the server loads it first.
	Loading bool
	// Reading is about how many tokens of the prompt the server has to
	// read, not having them in its cache.
	Reading int
}

// Waiting says what the request waits for before its first token:
// "loading qwen3:8b", "reading 12,400 tokens" or "waiting for qwen3:8b".
func (e TurnStarted) Waiting() string {
	if e.Model == "" {
		e.Model = "the model"
	}
	switch {
	case e.Loading:
		return "loading " + e.Model
	case e.Reading >= 500:
		return "reading " + human.Thousands(e.Reading) + " tokens"
	}
	return "waiting for " + e.Model
}

// ThinkingDelta is a piece of the model's reasoning. It is never part of
// the answer.
type ThinkingDelta struct {
	Turn int
	Text string
}

// TextDelta is a piece of the assistant's reply text.
type TextDelta struct {
	Turn int
	Text string
}

// ToolStarted: a call from the model is about to be handled (validated,
// approved if it needs to be, and run).
type ToolStarted struct {
	Turn  int
	Index int    // position of the call in the reply, from 0
	ID    string // the call's id; empty when the server sent none
	Name  string
	Kind  tools.Kind
	Args  string // the arguments as JSON
	// Subject is the key argument (path, pattern, command); empty when
	// the arguments did not validate.
	Subject string
	// Preview is the change a call that writes would make, as a unified
	// diff; empty for other calls.
	Preview string
	// Call is the call prepared, to ask what it works on (tools.PlaceOf,
	// tools.ChangeOf); nil when the arguments did not validate. Not to be
	// run.
	Call tools.Call
}

// ToolFinished: a call has its result. Every ToolStarted is followed by
// exactly one ToolFinished for the same Turn and Index.
type ToolFinished struct {
	Turn     int
	Index    int
	ID       string
	Name     string
	Kind     tools.Kind
	Subject  string
	Result   tools.Result
	Outcome  Outcome
	Duration time.Duration
	// Waited is how long the call waited for its approval.
	Waited time.Duration
	// NotApproved says that the Approver denied the call (Outcome is
	// denied): not a mode's refusal nor a rejected transition.
	NotApproved bool
	// HookNotes are what the call's hooks did, a line each ("PreToolUse
	// hook blocked it: …"); empty when none ran, or all went quietly.
	HookNotes []string
}

// Outcome says how a call ended.
type Outcome string

const (
	OutcomeOK          Outcome = "ok"          // ran and succeeded
	OutcomeFailed      Outcome = "error"       // ran, or could not run, and failed
	OutcomeDenied      Outcome = "denied"      // not approved
	OutcomeSkipped     Outcome = "skipped"     // not run: a limit was reached
	OutcomeInterrupted Outcome = "interrupted" // cancelled before or while running
)

// TurnFinished: the model's reply is complete and its calls have run, or
// the turn failed or was stopped after the reply was counted (Failed).
type TurnFinished struct {
	Turn             int
	Failed           bool // the turn ends the run in error: the reply was cut or could not be used
	PromptTokens     int  // the prompt's length, cached tokens included
	CompletionTokens int  // eval_count
	Duration         time.Duration
	// Reply is from sending the request to the reply's end, before its
	// calls ran.
	Reply        time.Duration
	EvalDuration time.Duration
	DoneReason   string
	ToolCalls    int
	Timing       Timing
}

// ReplyRewritten: the reply's text was not all answer: tool calls written
// as text were taken out of it and run as calls. Content is what remains
// of the reply's text; it replaces what was streamed.
type ReplyRewritten struct {
	Turn    int
	Content string
}

// Compacted: the conversation neared the end of the context window, and
// its older part was summarized; the full history stays in the store.
type Compacted struct {
	Summarized int // messages newly replaced by the summary
	Before     int // tokens the next request would have taken
	After      int // tokens it takes now (estimated)
}

// ModeChanged: a transition (start_task, an approved plan) switched the
// session's mode; the next turn runs with the new mode's prompt and tools.
type ModeChanged struct {
	From, To string
	Reason   string
	Plan     *plan.Plan // build mode's plan, a copy; nil without one
}

// PlanProposed: plan mode proposed a plan, which the Reviewer decides on
// next. Plan is a copy.
type PlanProposed struct {
	Turn int
	Plan *plan.Plan
}

// PlanUpdated: build mode marked a step of its plan. Plan is a copy.
type PlanUpdated struct{ Plan *plan.Plan }

// Warning is something the user should know that does not stop the run.
type Warning struct{ Text string }

// ToolProgress: a running call said how far it got (an MCP server's
// progress notification).
type ToolProgress struct {
	Turn, Index int
	Text        string
}

// ToolsChanged: the tools offered changed before the request about to be
// sent (an MCP server became ready, changed its tools, or they no longer
// fit their budget); Notes say how, one sentence each.
type ToolsChanged struct{ Notes []string }

func (TurnStarted) isEvent()    {}
func (ThinkingDelta) isEvent()  {}
func (TextDelta) isEvent()      {}
func (ToolStarted) isEvent()    {}
func (ToolFinished) isEvent()   {}
func (TurnFinished) isEvent()   {}
func (Warning) isEvent()        {}
func (ToolProgress) isEvent()   {}
func (ToolsChanged) isEvent()   {}
func (ReplyRewritten) isEvent() {}
func (Compacted) isEvent()      {}
func (ModeChanged) isEvent()    {}
func (PlanProposed) isEvent()   {}
func (PlanUpdated) isEvent()    {}
