package ui

import (
	"bytes"
	"io"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestPacer: the renderer keeps its fast start until the first idle
// check; then it runs at the frame rate while a stream or a spinner
// moves, at the echo rate for a second after a key, and slows down only
// after a second with no message and nothing moving; a message brings it
// back at once.
func TestPacer(t *testing.T) {
	var resets []time.Duration
	p := pacer{reset: func(d time.Duration) { resets = append(resets, d) }, frame: 100 * time.Millisecond, echo: 33 * time.Millisecond}
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	if cmd := p.heard(at(0), false); cmd == nil || len(resets) != 0 {
		t.Fatalf("the first message: resets %v, idle check %v; want the start rate kept and a check", resets, cmd != nil)
	}
	p.heard(at(300), true)
	if cmd := p.idle(at(1000), false); cmd == nil || !slices.Equal(resets, []time.Duration{33 * time.Millisecond}) {
		t.Fatalf("0.7 s after a key: resets %v, looked again: %v", resets, cmd != nil)
	}
	p.heard(at(1500), false) // streamed text, the key long gone
	p.heard(at(1600), false)
	if !slices.Equal(resets, []time.Duration{33 * time.Millisecond, 100 * time.Millisecond}) {
		t.Fatalf("streaming: resets %v, want the frame rate once", resets)
	}
	p.heard(at(1700), true) // a key while it streams
	if resets[len(resets)-1] != 33*time.Millisecond {
		t.Fatalf("a key: resets %v, want the echo rate", resets)
	}
	if cmd := p.idle(at(4000), true); cmd == nil || resets[len(resets)-1] != 100*time.Millisecond {
		t.Fatalf("quiet but a spinner turns: resets %v", resets)
	}
	n := len(resets)
	if cmd := p.idle(at(6000), false); cmd != nil || len(resets) != n+1 || resets[n] != idleInterval {
		t.Fatalf("quiet and still: resets %v, looked again: %v", resets, cmd != nil)
	}
	p.heard(at(7000), true) // a key after the pause
	if resets[len(resets)-1] != 33*time.Millisecond {
		t.Fatalf("a key after the pause: resets %v, want the echo rate back", resets)
	}
}

// tickerProbe reports, from its first Update, whether the program's
// renderer ticker can be reached.
type tickerProbe struct {
	p     **tea.Program
	found chan bool
}

func (t tickerProbe) Init() tea.Cmd { return nil }
func (t tickerProbe) Update(tea.Msg) (tea.Model, tea.Cmd) {
	select {
	case t.found <- rendererTicker(*t.p) != nil:
	default:
	}
	return t, tea.Quit
}
func (t tickerProbe) View() tea.View { return tea.NewView("probe") }

// TestRendererTickerReachable: the Bubble Tea this is built with keeps
// its renderer's ticker where the pacer looks for it; with another, the
// pacer does nothing and this fails.
func TestRendererTickerReachable(t *testing.T) {
	var p *tea.Program
	probe := tickerProbe{p: &p, found: make(chan bool, 1)}
	p = tea.NewProgram(probe, tea.WithInput(bytes.NewReader(nil)), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24))
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	select {
	case ok := <-probe.found:
		if !ok {
			t.Fatal("the renderer's ticker is not where the pacer looks for it")
		}
	default:
		t.Fatal("no message reached the model")
	}
}
