package ui

import (
	"cmp"
	"fmt"
	"lathe/prompts/human"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// usage is what the last reply told about the speed: its decode rate, the
// share of its prompt the server had cached, and its load when long.
type usage struct {
	tokPerSec float64 // of the last reply
	cached    int     // percent of the prompt; -1 when not known
	load      time.Duration
}

// statusState is everything the status line shows. Bubble Tea calls View
// after every message, a streamed token's included: the line is rendered
// again only when this changes.
type statusState struct {
	model, mode, hint string
	planDone, planLen int // the plan's progress; planLen 0 without one
	all               bool
	used, numCtx      int
	counted           bool
	turn              int
	usage             usage
	width             int
}

// statusBar is the status line: the last one rendered and what it
// showed, the note it shows until the next key, and whether a second
// Ctrl+C quits.
type statusBar struct {
	state     statusState
	line      string
	note      string
	quitArmed bool // a second Ctrl+C quits, until quitAt+quitWindow
	quitAt    time.Time
}

// statusLine renders the bottom line: model, mode, directory, context use,
// turn while running, speed, and a hint or note on the right.
func (m *model) statusLine() string {
	s := m.statusState()
	if m.status.line == "" || s != m.status.state {
		m.status.state, m.status.line = s, m.renderStatus(s)
	}
	return m.status.line
}

func (m *model) statusState() statusState {
	s := statusState{model: m.conn.info.Name, mode: m.mode.name, hint: m.hint(), all: m.opts.Engine.Config.Approval.All,
		numCtx: m.conn.info.NumCtx, usage: m.machine.usage, width: m.width}
	if s.model == "" {
		s.model = cmp.Or(m.opts.Engine.Config.Model, "no model")
	}
	if p := m.mode.plan; p != nil {
		s.planDone, s.planLen = p.Finished(), len(p.Steps)
	}
	if s.numCtx > 0 {
		// The session's own count: the server's, or "~" an estimate.
		snap := m.session.Snapshot()
		s.used, s.counted = snap.Used, snap.Counted
	}
	if m.run != nil {
		s.turn = m.run.turn
	}
	return s
}

// statusField is a field of the status line, and how soon it gives way
// when the line is too narrow for them all (the highest first).
type statusField struct {
	text    string
	dropped int // 0: never
}

func (m *model) renderStatus(s statusState) string {
	st := &m.st
	fields := []statusField{{st.statusKey.Render(s.model), 0}, {m.modeStatus(s), 0}}
	if s.all {
		fields = append(fields, statusField{st.approveAll.Render("--yes"), 0})
	}
	if s.numCtx > 0 {
		approx := ""
		if s.used > 0 && !s.counted {
			approx = "~"
		}
		fields = append(fields, statusField{st.status.Render(fmt.Sprintf("ctx %d%% %s%s/%s",
			s.used*100/s.numCtx, approx, human.Thousands(s.used), human.Thousands(s.numCtx))), 2})
	}
	if s.turn > 0 {
		fields = append(fields, statusField{st.status.Render(fmt.Sprintf("turn %d/%d", s.turn, m.opts.Engine.Config.Limits.MaxTurns)), 3})
	}
	if u := s.usage; u.tokPerSec > 0 {
		fields = append(fields, statusField{st.status.Render(fmt.Sprintf("%.0f tok/s", u.tokPerSec)), 4})
		if u.cached >= 0 {
			fields = append(fields, statusField{st.status.Render(fmt.Sprintf("cache %d%%", u.cached)), 5})
		}
		if u.load >= time.Second {
			fields = append(fields, statusField{st.status.Render("load " + elapsed(u.load)), 6})
		}
	}
	fields = append(fields, statusField{st.status.Render(shortDir(m.opts.Dir, m.opts.Home)), 7})
	right := st.status.Render(s.hint) + " "
	// Whole fields give way, the directory first, then load, cache,
	// speed, turn and context: the hint (a note, the key that matters
	// now) is what the user needs, and a field cut in the middle says
	// nothing ("50 tok/…").
	sep := st.status.Render(" · ")
	for drop := 8; ; drop-- {
		var kept []string
		for _, f := range fields {
			if f.dropped == 0 || f.dropped < drop {
				kept = append(kept, f.text)
			}
		}
		left := " " + strings.Join(kept, sep)
		gap := s.width - ansi.StringWidth(left) - ansi.StringWidth(right)
		switch {
		case gap >= 1:
			return left + strings.Repeat(" ", gap) + right
		case drop > 1:
			continue
		case s.width-ansi.StringWidth(right)-1 >= 12:
			// Too narrow for the model and mode: they are cut, the
			// hint kept.
			left = ansi.Truncate(left, s.width-ansi.StringWidth(right)-1, "…")
			return left + strings.Repeat(" ", s.width-ansi.StringWidth(left)-ansi.StringWidth(right)) + right
		}
		return ansi.Truncate(left, s.width, "…")
	}
}

// hint is the right side of the status line: a note, or the key that
// matters now.
func (m *model) hint() string {
	switch {
	case m.status.note != "":
		return m.status.note
	case m.status.quitArmed:
		return "ctrl+c again to quit"
	case m.dialog != nil:
		return m.dialog.hint()
	case m.run != nil && m.run.stopping:
		return "interrupting…"
	case m.run != nil:
		return "esc interrupt"
	case m.work.op != "":
		return m.work.op + "…"
	case m.machine.loading != "" && m.run == nil:
		return "loading " + m.machine.loading + "…"
	case m.index.View() != "":
		return m.index.View()
	}
	return "/help"
}

// setStatusNote shows a note on the status line until the next key.
func (m *model) setStatusNote(s string) { m.status.note = s }

// shortDir writes dir with the home directory as "~".
func shortDir(dir, home string) string {
	if home != "" {
		if rel, err := filepath.Rel(home, dir); err == nil && filepath.IsLocal(rel) {
			return filepath.Join("~", rel)
		}
		if dir == home {
			return "~"
		}
	}
	return dir
}
