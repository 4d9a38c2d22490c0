package ui

import (
	"reflect"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Bubble Tea's renderer wakes on a ticker at a fixed rate to draw what
// changed, even when nothing did; on a virtual machine each wake costs
// about 0.15 ms of CPU, 2% of a core at 120 frames a second. The pacer
// runs it fast while anything happens (a key, a streamed token, a
// spinner) and slows it to idleInterval once a second has passed with
// none; a message brings the rate back at once, so a key typed after a
// pause is drawn within one frame.
//
// While active it wakes at least every echoInterval, so that a key is
// drawn within that time even when streamed text is drawn less often
// (tui.fps); a wake that finds nothing changed costs only the wake.
const (
	idleInterval = 500 * time.Millisecond
	idleAfter    = time.Second
	echoInterval = time.Second / 30
)

// pacer sets the renderer's rate.
type pacer struct {
	reset    func(time.Duration) // the renderer ticker's Reset; nil when unreachable
	frame    time.Duration       // between frames of streamed text and spinners (tui.fps)
	echo     time.Duration       // between frames for a second after a key: echoInterval
	period   time.Duration       // the ticker's, once the pacer set it
	started  bool                // the first idle check came: the start rate may go
	last     time.Time           // of the last message
	lastKey  time.Time           // of the last key, paste, click or resize
	checking bool                // an idleCheckMsg is on its way
}

// idleCheckMsg asks the pacer whether the screen has been still long enough
// to slow the renderer down.
type idleCheckMsg struct{}

// rendererTicker returns the ticker that paces p's renderer, which Bubble
// Tea does not let a program change: nil if this version of it does not
// have one where v2.0.9 to v2.1.1 keep it (go.mod says why it is pinned).
// It is read once the program runs, in Update, on the goroutine that
// started the renderer.
func rendererTicker(p *tea.Program) *time.Ticker {
	if p == nil {
		return nil
	}
	f := reflect.ValueOf(p).Elem().FieldByName("ticker")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*time.Ticker]() || f.IsNil() {
		return nil
	}
	return (*time.Ticker)(f.UnsafePointer())
}

// heard notes a message at now (a key, a paste, a click or a resize when
// key): the renderer runs at the active rate, and an idle check is
// scheduled.
func (p *pacer) heard(now time.Time, key bool) tea.Cmd {
	if p.reset == nil {
		return nil
	}
	p.last = now
	if key {
		p.lastKey = now
	}
	if p.started {
		p.set(p.active(now))
	}
	return p.check(idleAfter)
}

// active is the rate while something happens: a key is drawn within
// echo for a second after it; a stream or a spinner needs only frame.
func (p *pacer) active(now time.Time) time.Duration {
	if !p.lastKey.IsZero() && now.Sub(p.lastKey) < idleAfter {
		return min(p.echo, p.frame)
	}
	return p.frame
}

func (p *pacer) set(d time.Duration) {
	if d != p.period {
		p.reset(d)
		p.period = d
	}
}

func (p *pacer) check(after time.Duration) tea.Cmd {
	if p.checking {
		return nil
	}
	p.checking = true
	return tea.Tick(after, func(time.Time) tea.Msg { return idleCheckMsg{} })
}

// idle handles an idleCheckMsg: with nothing heard for idleAfter and nothing
// moving, the renderer slows down; otherwise it runs at the active rate
// and looks again later. The first check ends the fast start.
func (p *pacer) idle(now time.Time, moving bool) tea.Cmd {
	p.checking, p.started = false, true
	if quiet := now.Sub(p.last); moving || quiet < idleAfter {
		p.set(p.active(now))
		return p.check(max(idleAfter-quiet, idleAfter/4))
	}
	p.reset(idleInterval) // always: a restarted renderer is back at its own rate
	p.period = idleInterval
	return nil
}
