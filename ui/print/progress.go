package print

import (
	"fmt"
	"io"
	"sync"
	"time"

	"lathe/orchestrator"
)

// A progress line is the sign of life a one-shot run shows on a terminal
// while the model is silent: a spinner and the time waited, from the
// moment a request is sent until the first token of its answer (thinking,
// which is not shown, keeps it, saying so), and again when the stream has
// been silent for a second. It is the last line of stderr, redrawn in
// place (carriage return, erase line), and erased as soon as the answer's
// tokens come or anything else is printed.
const (
	// spinInterval is how often the line is redrawn.
	spinInterval = 100 * time.Millisecond
	// silence is how long a stream that started must be silent before
	// the line shows again.
	silence = time.Second
	// eraseLine takes the cursor to the start of the line and clears it.
	eraseLine = "\r\x1b[2K"
)

var spinFrames = []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// progress draws the progress line on w. Its methods are called with the
// printer's lock held; tick runs on a goroutine of its own, started by
// the first request and stopped by stop.
type progress struct {
	w       io.Writer
	lock    *sync.Mutex // the printer's
	since   time.Time   // when the wait began; zero when not waiting
	after   time.Duration
	what    string // what is waited for
	shown   bool
	ticker  *time.Ticker
	done    chan struct{} // closed to stop the ticking goroutine
	stopped chan struct{} // closed by it once it has
}

// event updates the line for an event about to be handled.
func (p *progress) event(e orchestrator.Event) {
	switch e := e.(type) {
	case orchestrator.TurnStarted:
		p.wait(0, e.Waiting())
		p.draw()
	case orchestrator.ThinkingDelta:
		if p.what != thinking {
			p.wait(0, thinking) // nothing of it is printed: the line stays
			p.draw()
		}
	case orchestrator.TextDelta:
		p.wait(silence, "writing · silent") // the answer comes: the line goes, unless it stops again
	case orchestrator.ToolStarted, orchestrator.TurnFinished:
		p.since = time.Time{} // tools run; their lines say what happens
		p.erase()
	default:
		p.erase() // it may print a line
	}
}

const thinking = "the model is thinking"

// wait starts waiting for the model: the line shows once it has been
// silent for after, saying what.
func (p *progress) wait(after time.Duration, what string) {
	p.since, p.after, p.what = time.Now(), after, what
	p.erase()
	if p.ticker == nil {
		p.ticker = time.NewTicker(spinInterval)
		p.done, p.stopped = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
}

func (p *progress) tick() {
	defer close(p.stopped)
	for {
		select {
		case <-p.ticker.C:
			p.lock.Lock()
			p.draw()
			p.lock.Unlock()
		case <-p.done:
			return
		}
	}
}

// draw shows the line, when the model has been silent long enough.
func (p *progress) draw() {
	if p.since.IsZero() {
		return
	}
	waited := time.Since(p.since)
	if waited < p.after {
		return
	}
	frame := spinFrames[int(waited/spinInterval)%len(spinFrames)]
	fmt.Fprintf(p.w, "%s%c %s · %s", eraseLine, frame, p.what, waited.Truncate(time.Second))
	p.shown = true
}

// erase takes the line away, if it is shown.
func (p *progress) erase() {
	if p.shown {
		io.WriteString(p.w, eraseLine)
		p.shown = false
	}
}

// stop erases the line and ends the ticking for good. It must be called
// without the printer's lock.
func (p *progress) stop() {
	if p.ticker != nil {
		p.ticker.Stop()
		close(p.done)
		<-p.stopped
	}
	p.lock.Lock()
	defer p.lock.Unlock()
	p.since = time.Time{}
	p.erase()
}
