// Package session holds what lathe keeps of a conversation: its records (the
// session, its messages, compactions, modes and runs), the catalogue that
// finds saved sessions, and the mending that makes a saved history valid to
// continue after a crash. Package session/sqlite keeps them in a database.
package session

import (
	"errors"
	"time"

	"lathe/orchestrator/provider"
)

// Errors a store returns; test with errors.Is.
var (
	ErrNotFound    = errors.New("session not found")
	ErrAmbiguousID = errors.New("session id prefix matches several sessions")
)

// ShortID is how a session's id is shown in lists: its first eight
// characters, a prefix Catalog.Find resolves while it is unique.
func ShortID(id string) string { return id[:min(8, len(id))] }

// Record is what identifies a session.
type Record struct {
	ID      string
	Title   string
	Dir     string // the working directory, absolute
	Model   string
	Created time.Time
}

// Message is a message of a session's history as it is kept: exactly what
// the model needs to be sent it again, plus what a UI shows of a tool
// result.
type Message struct {
	Seq     int // 0 is the first message after the system prompt, which is not kept
	Message provider.Message
	Tool    *ToolMeta // for role "tool": how the call ended
	Counts  *Counts   // for role "assistant": what the server counted; nil when it did not say
	// Cut says, for role "assistant", that the reply ended before it
	// completed (interrupted, its stream broken, its process dead): what
	// came of it is all there is.
	Cut     bool
	Created time.Time
}

// Counts are the tokens the server counted for a reply: the request it
// answered (Prompt) and the reply itself (Completion).
type Counts struct {
	Prompt, Completion int
}

// ToolMeta is how a tool call ended, for showing a resumed session.
type ToolMeta struct {
	Subject  string
	Outcome  string // "ok", "error", "denied", "skipped" or "interrupted"
	Summary  string
	Duration time.Duration
	// Diff is the change a call that writes made, as the unified diff
	// its card showed; "" when it showed none.
	Diff string
}

// Compaction replaces, in requests, the messages before Seq with Summary.
type Compaction struct {
	Seq     int
	Summary string
	Created time.Time
}

// ModeRecord is the session's mode from a position of its history on.
type ModeRecord struct {
	Seq     int
	Mode    string      // "ask", "plan" or "build"
	Plan    *PlanRecord // build mode's plan, its checklist as it stands
	Reason  string      // what changed it: "plan approved", "/mode ask"...
	Created time.Time
}

// PlanRecord is a plan as it is kept: what build mode carries out, step
// by step (see the orchestrator's plan.Plan, which it is made from).
type PlanRecord struct {
	Summary string     `json:"summary"`
	Steps   []PlanStep `json:"steps"`
}

// PlanStep is one step of a kept plan and where it stands.
type PlanStep struct {
	Text   string `json:"text"`
	Status string `json:"status"` // "pending", "in_progress", "done" or "skipped"
}

// RunStart is the start of one prompt's run.
type RunStart struct {
	SessionID string
	Model     string
	Options   map[string]any // the model options sent: num_ctx, temperature...
	Started   time.Time
}

// RunEnd is how a run ended.
type RunEnd struct {
	StopReason       string
	Failure          string // the error, when the run failed
	Turns            int
	ToolCalls        int
	PromptTokens     int
	CompletionTokens int
	Completed        time.Time
}

// Saved is a session as loaded to be resumed.
type Saved struct {
	Record
	Updated time.Time
	// Messages are the messages from seq From on, in seq order; a seq
	// may be missing (a result never written).
	Messages []Message
	// From is the seq Messages start at: 0 for the whole history; read
	// to resume, the seq of the latest compaction, the messages before it,
	// which requests no longer send, left in the store.
	From       int
	Compaction *Compaction // the latest; nil when there was none
	Modes      []ModeRecord
	LastRun    *RunSummary
}

// Summary is a session as a list shows it.
type Summary struct {
	Record
	Updated  time.Time
	Messages int
	LastRun  *RunSummary
	Undone   int // runs taken back (undo, rewind) and not done again
}

// RunSummary is a run as a list shows it.
type RunSummary struct {
	Started    time.Time
	Completed  time.Time // zero when the process died during the run
	StopReason string
	Failure    string
}

// Ending is how a run ended for people: its stop reason, or "interrupted"
// when the process died before it could record one.
func (r RunSummary) Ending() string {
	if r.Completed.IsZero() {
		return "interrupted"
	}
	return r.StopReason
}
