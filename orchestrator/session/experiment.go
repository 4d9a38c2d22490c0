package session

import (
	"errors"
	"time"
)

// Errors of the experiment records; test with errors.Is.
var (
	ErrNoExperiment = errors.New("experiment not found")
	// ErrTransition is a change of an attempt's state its lifecycle does
	// not allow (see AttemptState.Next).
	ErrTransition = errors.New("attempt state cannot change so")
)

// An experiment runs the tasks of a suite against models, each task
// Repeat times per model: one Attempt per task, model and repetition.

// Experiment is an experiment as recorded.
type Experiment struct {
	ID      int64
	Suite   string // the suite's directory, absolute, or "builtin"
	Repeat  int
	Jobs    int    // attempts run at once
	Sandbox string // the sandbox mode commands ran in
	Version string // lathe's version line
	Created time.Time
	// Completed is when its last attempt ended; zero while some have not
	// (running, or their process died).
	Completed time.Time
	Models    []ExperimentModel // in the order they run
	Tasks     []ExperimentTask  // in the suite's order
	Attempts  []Attempt         // every try, in id order
}

// ExperimentModel is a model an experiment runs, as the server described
// it before its tasks.
type ExperimentModel struct {
	Name          string
	ParameterSize string // "8.2B"; "" when the server did not say
	Quantization  string // "Q4_K_M"
	NumCtx        int    // the context window lathe chose for it
	Load          time.Duration
}

// ExperimentTask is a task of an experiment's suite, as read when the
// experiment began.
type ExperimentTask struct {
	Name string
	// Spec is the task as read (JSON): prompt, mode, limits, check, tags.
	Spec string
	// Digest is the SHA-256 of the task's files, to tell a task changed
	// since.
	Digest string
	// Skipped says why the task is not run: its task.toml is bad, or the
	// toolchain it needs is missing; "" when it is run.
	Skipped string
}

// Slot is an attempt an experiment plans: one repetition of a task by a
// model. Each run of it is a try.
type Slot struct {
	Model, Task string
	Rep         int
}

// AttemptState is where an attempt is in its lifecycle:
//
//	created → running → finished (its goal met or not)
//	                  → failed   (a limit, an error, a timeout, interrupted, abandoned)
type AttemptState string

const (
	AttemptCreated  AttemptState = "created"
	AttemptRunning  AttemptState = "running"
	AttemptFinished AttemptState = "finished"
	AttemptFailed   AttemptState = "failed"
)

// Next reports whether an attempt in state s may change to next.
func (s AttemptState) Next(next AttemptState) bool {
	switch s {
	case AttemptCreated:
		return next == AttemptRunning
	case AttemptRunning:
		return next == AttemptFinished || next == AttemptFailed
	}
	return false
}

// Ended reports whether s is final.
func (s AttemptState) Ended() bool { return s == AttemptFinished || s == AttemptFailed }

// Why a failed attempt failed (Attempt.FailureReason).
const (
	FailLimit       = "limit"       // lathe stopped on a limit: turns, tool calls, repetition...
	FailError       = "error"       // lathe failed: the model, the server, the stream...
	FailTimeout     = "timeout"     // the task's time ran out: lathe was stopped
	FailInterrupted = "interrupted" // the experiment itself was interrupted
	FailAbandoned   = "abandoned"   // its process died; another try replaced it
)

// Attempt is one run of a task by a model: one try of one repetition.
type Attempt struct {
	ID    int64
	Model string
	Task  string
	Rep   int // 1 to the experiment's Repeat
	Try   int // 1, then one more each time it is run again
	State AttemptState
	// GoalMet is the check's verdict; nil until the check ran.
	GoalMet       *bool
	StopReason    string // lathe's stop reason ("done", "max_turns"...)
	FailureReason string // for a failed attempt: one of the Fail... reasons
	Failure       string // what went wrong, in words
	SessionID     string // the lathe session of the run, when one was saved
	Options       map[string]any
	Result        AttemptResult
	CheckExit     *int   // the check's exit code; nil when it did not run or was killed
	CheckOutput   string // its output's last lines
	// Reward is the reward the check wrote (tasks of Harbor's format:
	// 1 meets the goal); nil when it wrote none.
	Reward *float64
	// Trajectory is the file the run's ATIF trajectory is kept in; "" for
	// none.
	Trajectory string
	Created    time.Time
	Started    time.Time // zero until it runs
	Active     time.Time // the runner's last sign of life while it ran
	Completed  time.Time // zero until it ended; zero for good when its process died
	// RunnerGone reports, for a running attempt, that the process running
	// it is known to be dead (on this machine).
	RunnerGone bool
}

// AttemptResult is what a run counted.
type AttemptResult struct {
	Turns            int
	ToolCalls        int
	PromptTokens     int
	CompletionTokens int
	Recoveries       int
	Wall             time.Duration // lathe's run, start to end, as the runner saw it
	Load             time.Duration
	Prefill          time.Duration
	Decode           time.Duration
	PrefillRate      float64 // tokens a second; 0 when unknown
	DecodeRate       float64
}

// AttemptEnd is how an attempt ended.
type AttemptEnd struct {
	State         AttemptState // finished or failed
	GoalMet       *bool
	StopReason    string
	FailureReason string
	Failure       string
	SessionID     string
	Options       map[string]any
	Result        AttemptResult
	CheckExit     *int
	CheckOutput   string
	Reward        *float64
	Trajectory    string
	Completed     time.Time // zero: now
}
