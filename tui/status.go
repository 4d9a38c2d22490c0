package tui

import (
	"fmt"
	"lathe/internal/human"
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

// statusLine renders the bottom line: model, mode, directory, context use,
// turn while running, speed, and a hint or note on the right.
func (m *model) statusLine() string {
	st := &m.st
	sep := st.status.Render(" · ")
	var parts []string
	model := m.info.Name
	if model == "" {
		model = m.opts.Engine.Config.Model
	}
	if model == "" {
		model = "no model"
	}
	parts = append(parts, st.statusKey.Render(model), m.modeStatus())
	if m.opts.Engine.Config.Approval.All {
		parts = append(parts, st.approveAll.Render("--yes"))
	}
	if m.info.NumCtx > 0 {
		// The session's own count: the server's, or "~" an estimate.
		snap := m.session.Snapshot()
		approx := ""
		if snap.Used > 0 && !snap.Counted {
			approx = "~"
		}
		parts = append(parts, st.status.Render(fmt.Sprintf("ctx %d%% %s%s/%s",
			snap.Used*100/m.info.NumCtx, approx, human.Thousands(snap.Used), human.Thousands(m.info.NumCtx))))
	}
	if m.run != nil && m.run.turn > 0 {
		parts = append(parts, st.status.Render(fmt.Sprintf("turn %d/%d", m.run.turn, m.opts.Engine.Config.Limits.MaxTurns)))
	}
	if u := m.usage; u.tokPerSec > 0 {
		speed := fmt.Sprintf("%.0f tok/s", u.tokPerSec)
		if u.cached >= 0 {
			speed += fmt.Sprintf(" · cache %d%%", u.cached)
		}
		if u.load >= time.Second {
			speed += " · load " + elapsed(u.load)
		}
		parts = append(parts, st.status.Render(speed))
	}
	left := " " + strings.Join(parts, sep)
	right := st.status.Render(m.hint()) + " "
	dir := st.status.Render(shortDir(m.opts.Dir, m.opts.Home))
	// The directory gives way first, then the end of the left side: the
	// hint (a note, the key that matters now) is what the user needs.
	for _, try := range []string{left + sep + dir, left} {
		if gap := m.width - ansi.StringWidth(try) - ansi.StringWidth(right); gap >= 1 {
			return try + strings.Repeat(" ", gap) + right
		}
	}
	if room := m.width - ansi.StringWidth(right) - 1; room >= 12 {
		left = ansi.Truncate(left, room, "…")
		return left + strings.Repeat(" ", m.width-ansi.StringWidth(left)-ansi.StringWidth(right)) + right
	}
	return ansi.Truncate(left, m.width, "…")
}

// hint is the right side of the status line: a note, or the key that
// matters now.
func (m *model) hint() string {
	switch {
	case m.note != "":
		return m.note
	case m.quitArmed:
		return "ctrl+c again to quit"
	case m.dialog != nil:
		return m.dialog.hint()
	case m.run != nil && m.run.stopping:
		return "interrupting…"
	case m.run != nil:
		return "esc interrupt"
	case m.op != "":
		return m.op + "…"
	case m.loading != "" && m.run == nil:
		return "loading " + m.loading + "…"
	}
	return "/help"
}

// setStatusNote shows a note on the status line until the next key.
func (m *model) setStatusNote(s string) { m.note = s }

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
