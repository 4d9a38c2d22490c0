package tui

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
	active   time.Duration       // between frames while something happens
	last     time.Time           // of the last message
	fast     bool                // the ticker runs at active or faster
	checking bool                // an idleCheck is on its way
}

// idleCheck asks the pacer whether the screen has been still long enough
// to slow the renderer down.
type idleCheck struct{}

// rendererTicker returns the ticker that paces p's renderer, which Bubble
// Tea does not let a program change: nil if this version of it does not
// have one where v2.0.9 keeps it. It is read once the program runs, in
// Update, on the goroutine that started the renderer.
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

// heard notes a message at now: the renderer runs at the active rate, and
// an idle check is scheduled.
func (p *pacer) heard(now time.Time) tea.Cmd {
	if p.reset == nil {
		return nil
	}
	p.last = now
	if !p.fast {
		p.reset(p.active)
		p.fast = true
	}
	return p.check(idleAfter)
}

func (p *pacer) check(after time.Duration) tea.Cmd {
	if p.checking {
		return nil
	}
	p.checking = true
	return tea.Tick(after, func(time.Time) tea.Msg { return idleCheck{} })
}

// idle handles an idleCheck: with nothing heard for idleAfter and nothing
// moving, the renderer slows down; otherwise it looks again later.
func (p *pacer) idle(now time.Time, moving bool) tea.Cmd {
	p.checking = false
	if quiet := now.Sub(p.last); moving || quiet < idleAfter {
		return p.check(max(idleAfter-quiet, idleAfter/4))
	}
	p.reset(idleInterval) // always: a restarted renderer is back at its own rate
	p.fast = false
	return nil
}
