package print

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"lathe/orchestrator"
	"lathe/tools"
)

// lockedBuffer is a strings.Builder a goroutine may write while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// take returns what was written since the last take.
func (l *lockedBuffer) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return s
}

// TestProgressLine: on a terminal's stderr, a line says how long the
// model has been silent, from the request to the first token of the
// answer and again after a second of silence; it is erased when the
// answer's tokens come and before any other line.
func TestProgressLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out strings.Builder
		var errOut lockedBuffer
		p := New(FormatText, &out, &errOut, Options{Progress: true})
		step := func(d time.Duration) string {
			time.Sleep(d)
			synctest.Wait()
			return errOut.take()
		}
		p.Event(orchestrator.TurnStarted{Turn: 1, Model: "qwen3:8b", Loading: true})
		if got := errOut.take(); got != "\r\x1b[2K⠋ loading qwen3:8b · 0s" {
			t.Errorf("at the request: %q", got)
		}
		got := step(2550 * time.Millisecond)
		if !strings.HasSuffix(got, " loading qwen3:8b · 2s") || !strings.Contains(got, "⠙ loading") {
			t.Errorf("2.5s later: %q, want the spinner turning and 2s", got)
		}
		p.Event(orchestrator.ThinkingDelta{Turn: 1, Text: "hmm"})
		if got := step(1050 * time.Millisecond); !strings.HasSuffix(got, " the model is thinking · 1s") {
			t.Errorf("thinking: %q", got)
		}
		p.Event(orchestrator.TextDelta{Turn: 1, Text: "Let me"})
		if got := errOut.take(); got != "\r\x1b[2K" {
			t.Errorf("the answer's first token: %q, want the line erased", got)
		}
		if got := step(900 * time.Millisecond); got != "" {
			t.Errorf("a stream silent for less than a second: %q", got)
		}
		p.Event(orchestrator.TextDelta{Turn: 1, Text: " look."})
		if got := step(1500 * time.Millisecond); !strings.HasSuffix(got, "writing · silent · 1s") {
			t.Errorf("a stream silent for 1.5s: %q", got)
		}
		p.Event(orchestrator.ToolStarted{Turn: 1, Name: "read_file"})
		p.Event(orchestrator.ToolFinished{Turn: 1, Name: "read_file", Subject: "a.go", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Summary: "3 lines"}})
		if got := errOut.take(); got != "\r\x1b[2K✓ read_file a.go: 3 lines\n" {
			t.Errorf("a tool line: %q, want the progress line erased first", got)
		}
		if got := step(3 * time.Second); got != "" {
			t.Errorf("while tools run: %q", got)
		}
		p.Event(orchestrator.TurnStarted{Turn: 2})
		p.Event(orchestrator.TextDelta{Turn: 2, Text: "Done."})
		errOut.take()
		if err := p.Finish(orchestrator.Result{StopReason: orchestrator.StopDone, Text: "Done."}, nil); err != nil {
			t.Fatal(err)
		}
		if got := step(5 * time.Second); got != "" {
			t.Errorf("after the run: %q", got)
		}
		if out.String() != "Done.\n" {
			t.Errorf("stdout %q", out.String())
		}
	})
}

// TestNoProgressLine: not on a terminal, nor in the JSON formats, is any
// progress line drawn.
func TestNoProgressLine(t *testing.T) {
	for _, c := range []struct {
		format   Format
		progress bool
	}{{FormatText, false}, {FormatJSON, true}, {FormatStreamJSON, true}} {
		synctest.Test(t, func(t *testing.T) {
			var out strings.Builder
			var errOut lockedBuffer
			p := New(c.format, &out, &errOut, Options{Progress: c.progress})
			p.Event(orchestrator.TurnStarted{Turn: 1})
			time.Sleep(5 * time.Second)
			synctest.Wait()
			if err := p.Finish(orchestrator.Result{StopReason: orchestrator.StopDone, Text: "Done."}, nil); err != nil {
				t.Fatal(err)
			}
			if got := errOut.take(); got != "" {
				t.Errorf("%s, progress %v: stderr %q", c.format, c.progress, got)
			}
		})
	}
}
