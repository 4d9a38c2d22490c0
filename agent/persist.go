package agent

import (
	"context"
	"errors"
	"time"

	"github.com/ollama/ollama/api"
)

// Store keeps sessions, their messages and their runs durably. The
// agent writes through it as things happen, so that a crash loses
// at most the reply being streamed. Package orchestrator/store implements
// it with SQLite.
type Store interface {
	// CreateSession records a new session.
	CreateSession(ctx context.Context, s SessionRecord) error
	// SetTitle names a session.
	SetTitle(ctx context.Context, sessionID, title string) error
	// SaveMessage commits one complete message at position seq of the
	// session's history (0 is the first message after the system prompt,
	// which is not stored) and marks the session updated. Tool results
	// may arrive out of order; a message already at seq is replaced.
	SaveMessage(ctx context.Context, sessionID string, m StoredMessage) error
	// SaveCompaction records that requests now replace the messages before
	// seq with summary.
	SaveCompaction(ctx context.Context, sessionID string, c Compaction) error
	// SaveMode records the session's mode from position seq of its history
	// on (a mode change, or the plan's checklist updated); a record at the
	// same seq is replaced.
	SaveMode(ctx context.Context, sessionID string, m ModeRecord) error
	// StartRun records the start of a prompt's run and returns its id.
	StartRun(ctx context.Context, r RunRecord) (int64, error)
	// FinishRun records how a run ended.
	FinishRun(ctx context.Context, runID int64, end RunEnd) error
	// LoadSession returns a session with its messages (by seq), its
	// latest compaction and its last run. ErrSessionNotFound when absent.
	LoadSession(ctx context.Context, id string) (SavedSession, error)
	// FindSession resolves an id or a unique prefix of one
	// (ErrSessionNotFound, ErrAmbiguousID).
	FindSession(ctx context.Context, prefix string) (string, error)
	// LatestSession returns the most recently updated session in dir
	// (ErrSessionNotFound when there is none).
	LatestSession(ctx context.Context, dir string) (string, error)
	// ListSessions returns the sessions in dir, most recently updated
	// first.
	ListSessions(ctx context.Context, dir string) ([]SessionSummary, error)
}

// Errors a Store returns; test with errors.Is.
var (
	ErrSessionNotFound = errors.New("session not found")
	ErrAmbiguousID     = errors.New("session id prefix matches several sessions")
)

// SessionRecord is what identifies a session.
type SessionRecord struct {
	ID      string
	Title   string
	Dir     string // the working directory, absolute
	Model   string
	Created time.Time
}

// StoredMessage is a message of a session's history as it is kept:
// exactly what Ollama needs to be sent it again, plus what a UI shows of
// a tool result.
type StoredMessage struct {
	Seq     int
	Message api.Message
	Tool    *ToolMeta // for role "tool": how the call ended
	Created time.Time
}

// ToolMeta is how a tool call ended, for showing a resumed session.
type ToolMeta struct {
	Subject  string
	Outcome  Outcome
	Summary  string
	Duration time.Duration
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
	Mode    string // "ask", "plan" or "build"
	Plan    *Plan  // build mode's plan, its checklist as it stands
	Reason  string // what changed it: "the plan was approved", "/mode ask"...
	Created time.Time
}

// RunRecord is the start of one prompt's run.
type RunRecord struct {
	SessionID string
	Model     string
	Options   map[string]any // the Ollama options sent: num_ctx, temperature...
	Started   time.Time
}

// RunEnd is how a run ended.
type RunEnd struct {
	StopReason StopReason
	Failure    string // the error, with StopError
	Turns      int
	ToolCalls  int
	Usage      Usage
	Completed  time.Time
}

// SavedSession is a session as loaded to be resumed.
type SavedSession struct {
	SessionRecord
	Updated    time.Time
	Messages   []StoredMessage // in seq order; a seq may be missing (a result never written)
	Compaction *Compaction     // the latest; nil when there was none
	Modes      []ModeRecord    // in seq order; the last is the current mode
	LastRun    *RunSummary
}

// SessionSummary is a session as a list shows it.
type SessionSummary struct {
	SessionRecord
	Updated  time.Time
	Messages int
	LastRun  *RunSummary
}

// RunSummary is a run as a list shows it.
type RunSummary struct {
	Started    time.Time
	Completed  time.Time // zero when the process died during the run
	StopReason StopReason
	Failure    string
}

// Ending is how a run ended for people: its stop reason, or
// "interrupted" when the process died before it could record one.
func (r RunSummary) Ending() StopReason {
	if r.Completed.IsZero() {
		return StopInterrupted
	}
	return r.StopReason
}
