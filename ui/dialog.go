package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// dialogBase is what every dialog holds: the theme, the keys, its size,
// and whether it was answered.
type dialogBase struct {
	st            *theme
	keys          keyMap
	width, height int
	answered      bool // it takes no more keys, waiting for the root to close it
}

// over reports whether the dialog was answered: the keys typed until the
// root closes it go to the input.
func (b *dialogBase) over() bool { return b.answered }

func newDialogBase(st *theme, keys keyMap) dialogBase { return dialogBase{st: st, keys: keys} }

// SetSize gives the dialog its width and the most lines it may take.
func (b *dialogBase) SetSize(width, height int) { b.width, b.height = width, height }

// close marks d answered and returns the command that tells the root.
func (b *dialogBase) close(d dialog) tea.Cmd {
	b.answered = true
	return send(dialogClosedMsg{d})
}

// keyOf is msg as a key the dialog takes: none once it is answered.
func (b *dialogBase) keyOf(msg tea.Msg) (tea.KeyPressMsg, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	return k, ok && !b.answered
}

// choice is a choice a dialog's footer lists: its key, and what it does.
func choice(st *theme, b key.Binding, text string) string {
	return st.key.Render(b.Help().Key) + " " + text
}

// rule is the line a dialog starts with.
func (b *dialogBase) rule() string { return b.st.rule.Render(strings.Repeat("─", b.width)) }

// reasonField is the line a dialog opens for a reason, or feedback, the
// model sees: Deny opens it, Enter sends what was typed, Esc goes back to
// the dialog's choices (a key pressed by mistake answers nothing).
type reasonField struct {
	open  bool
	input textinput.Model
}

func newReasonField(prompt, placeholder string) reasonField {
	ti := textinput.New()
	ti.Prompt, ti.Placeholder = prompt, placeholder
	return reasonField{input: ti}
}

// start opens the field.
func (f *reasonField) start() tea.Cmd {
	f.open = true
	return f.input.Focus()
}

// update handles a key while the field is open; sent reports Enter, with
// what was typed.
func (f *reasonField) update(msg tea.KeyPressMsg, keys keyMap) (text string, sent bool, cmd tea.Cmd) {
	switch {
	case key.Matches(msg, keys.Send):
		return strings.TrimSpace(f.input.Value()), true, nil
	case key.Matches(msg, keys.Interrupt):
		f.open = false
		f.input.Blur()
		return "", false, nil
	}
	f.input, cmd = f.input.Update(msg)
	return "", false, cmd
}

// view is the field's line at width.
func (f *reasonField) view(width int) string {
	f.input.SetWidth(max(width-len(f.input.Prompt)-2, 10))
	return " " + f.input.View()
}

// scrollWindow is the part of a dialog's body that shows when the body is
// longer than its room: moved with ↑↓ PgUp PgDn Home End before deciding.
type scrollWindow struct{ top, room int }

// key moves the window over total lines; it reports whether msg was one of
// its keys.
func (s *scrollWindow) key(msg tea.KeyPressMsg, keys keyMap, total int) bool {
	page := max(s.room-1, 1)
	switch {
	case key.Matches(msg, keys.Prev):
		s.top--
	case key.Matches(msg, keys.Next):
		s.top++
	case key.Matches(msg, keys.PageUp):
		s.top -= page
	case key.Matches(msg, keys.PageDown):
		s.top += page
	case key.Matches(msg, keys.First):
		s.top = 0
	case key.Matches(msg, keys.Last):
		s.top = total
	default:
		return false
	}
	s.top = max(0, min(s.top, total-s.room))
	return true
}

// fit places the window over total lines in room lines, one of which says
// where the view is when not all fit (see where), and returns the lines
// shown.
func (s *scrollWindow) fit(total, room int) (from, to int) {
	s.room = min(room, total)
	if total > room {
		s.room = max(room-1, 1)
	}
	s.top = max(0, min(s.top, total-s.room))
	return s.top, s.top + s.room
}

// where says which lines of total show, in at most width columns; ""
// when all do.
func (s *scrollWindow) where(total, width int) string {
	if total <= s.room {
		return ""
	}
	at := fmt.Sprintf("lines %d–%d of %d", s.top+1, s.top+s.room, total)
	for _, keys := range []string{" · ↑↓ pgup pgdn home end scroll", " · ↑↓ pgup pgdn scroll", " · ↑↓ scroll"} {
		if ansi.StringWidth(at+keys) <= width {
			return at + keys
		}
	}
	return at
}

// joinWrapped joins parts with sep into lines of at most width columns,
// each starting with a space, breaking only between parts.
func joinWrapped(parts []string, sep string, width int) []string {
	var lines []string
	line := ""
	for _, p := range parts {
		switch {
		case line == "":
			line = " " + p
		case ansi.StringWidth(line+sep+p) <= width:
			line += sep + p
		default:
			lines = append(lines, line)
			line = " " + p
		}
	}
	return append(lines, line)
}

// dialogKey hands a key to the dialog.
func (m *model) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	m.dialog, cmd = m.dialog.Update(msg)
	return cmd
}

// dialogClosed closes the dialog answered and carries its answer out; the
// request it held goes on. A dialog no longer open (its request
// interrupted, or over) is no longer waited on: cancel answered it, or
// nothing needs to.
func (m *model) dialogClosed(msg dialogClosedMsg) tea.Cmd {
	if m.dialog != msg.d {
		return nil
	}
	var cmd tea.Cmd
	switch d := msg.d.(type) {
	case *approvalDialog:
		m.approvalAnswered(d)
	case *planDialog:
		m.planAnswered(d)
	case *startDialog:
		d.answer()
	case *undoDialog:
		cmd = m.undoAnswered(d)
	case *trustDialog:
		cmd = m.trustAnswered(d)
	case *fitDialog:
		cmd = m.fitAnswered(d)
	case mcpDialog:
		cmd = m.mcpAnswered(d)
	case *hooksTrustDialog:
		cmd = m.hooksTrustAnswered(d)
	}
	m.dialog = nil
	m.nextAsk()
	m.offerHooksTrust() // when another dialog was open at start
	if m.run != nil {
		m.run.setWaiting(false)
	}
	return tea.Batch(cmd, m.animate(), m.next())
}
