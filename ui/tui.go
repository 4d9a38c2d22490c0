// Package ui is lathe's interactive terminal UI: the transcript of a session
// with streamed answers, tool cards and dialogs, the input, and the status
// line, fed by the agent's events.
package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// shutdownWait bounds how long quitting waits for a cancelled request to
// wind down (its shell command killed, its stream closed).
const shutdownWait = 5 * time.Second

// startFPS is the renderer's rate until the pacer sets it.
const startFPS = 120

// Run runs the interactive mode until the user quits or ctx ends. The
// terminal is restored on every way out, panics included.
func Run(ctx context.Context, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newModel(ctx, opts)
	environ := opts.Environ
	// The renderer starts at its fastest, so that the first frame is out
	// within 8 ms; from its first idle check, a second on, the pacer sets
	// its rate (see pace.go).
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithEnvironment(environ),
		tea.WithColorProfile(colorProfile(environ)), tea.WithFPS(startFPS)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	m.frames.program = tea.NewProgram(m, popts...)
	_, err := m.frames.program.Run()
	m.shutdown(cancel)
	m.session.End(context.Background(), "prompt_input_exit", nil)
	m.exitHint(opts.Output)
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // ended by a signal: a normal way out
	}
	return err
}

// exitHint tells w, once the program has left the screen, how to resume
// the session, if it was saved.
func (m *model) exitHint(w io.Writer) {
	if id := m.session.Snapshot().SavedID(); id != "" && w != nil && !m.opts.Ephemeral {
		fmt.Fprintf(w, "Resume this session with: lathe --resume %s\n", id)
	}
}

// shutdown cancels what still runs and waits, for a while, for it to end.
func (m *model) shutdown(cancel context.CancelFunc) {
	cancel()
	m.bridge.close()
	done := make(chan struct{})
	go func() {
		m.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(shutdownWait):
	}
}

// colorProfile is the terminal's colour profile read from the environment
// alone (TERM, COLORTERM, NO_COLOR...): colorprofile.Detect also reads the
// terminfo database, 8 ms before the first frame.
func colorProfile(environ []string) colorprofile.Profile {
	return colorprofile.Env(environ)
}
