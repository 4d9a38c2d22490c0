package orchestrator

import (
	"errors"
	"sync"
)

// ErrBusy is what an operation asked for while another is under way fails
// with; the error is a *BusyError saying what is under way.
var ErrBusy = errors.New("the session is busy")

// BusyError says what keeps the session busy.
type BusyError struct {
	// Doing is the operation under way: "running a request",
	// "compacting"...
	Doing string
}

func (e *BusyError) Error() string        { return "busy: " + e.Doing }
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// The operations, as a BusyError names them.
const (
	opPrepare = "connecting to the model"
	opResume  = "resuming a session"
	opRun     = "running a request"
	opCompact = "compacting"
	opModel   = "switching the model"
	opMode    = "changing the mode"
	opReset   = "starting a new session"
	opTitle   = "naming the session"
	opClosed  = "closed"
	opUndo    = "taking back a run"
	opContext = "measuring the context"
	opTools   = "reloading the tools"
	opEnding  = "ending the session"
	opPages   = "reading the history's pages"
)

// ops lets one operation run at a time and keeps the snapshot the other
// goroutines read.
type ops struct {
	mu   sync.Mutex
	busy string
	snap Snapshot
}

// begin starts an operation, or fails with a *BusyError.
func (o *ops) begin(op string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.busy != "" {
		return &BusyError{Doing: o.busy}
	}
	o.busy = op
	return nil
}

func (o *ops) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.busy = ""
}

func (o *ops) publish(s Snapshot) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.snap = s
}

func (o *ops) snapshot() Snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.snap
	s.Busy = o.busy
	return s
}
