package tui

import (
	"bytes"
	"io"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestPacer: the renderer runs at the active rate from the first message,
// is not reset again while messages come, and slows down only after a
// second with none and nothing moving.
func TestPacer(t *testing.T) {
	var resets []time.Duration
	p := pacer{reset: func(d time.Duration) { resets = append(resets, d) }, active: 50 * time.Millisecond}
	t0 := time.Unix(0, 0)
	if cmd := p.heard(t0); cmd == nil {
		t.Fatal("no idle check scheduled")
	}
	p.heard(t0.Add(300 * time.Millisecond))
	if !slices.Equal(resets, []time.Duration{50 * time.Millisecond}) {
		t.Fatalf("resets %v after two messages, want one to the active rate", resets)
	}
	if cmd := p.idle(t0.Add(time.Second), false); cmd == nil || len(resets) != 1 {
		t.Fatalf("0.7 s after the last message: resets %v, looked again: %v", resets, cmd != nil)
	}
	if cmd := p.idle(t0.Add(3*time.Second), true); cmd == nil || len(resets) != 1 {
		t.Fatalf("quiet but a spinner turns: resets %v", resets)
	}
	if cmd := p.idle(t0.Add(4*time.Second), false); cmd != nil || !slices.Equal(resets, []time.Duration{50 * time.Millisecond, idleInterval}) {
		t.Fatalf("quiet and still: resets %v, looked again: %v", resets, cmd != nil)
	}
	p.heard(t0.Add(5 * time.Second)) // a key after the pause
	if resets[len(resets)-1] != 50*time.Millisecond {
		t.Fatalf("a message after the pause: resets %v, want the active rate back", resets)
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
