package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator/provider"
)

// maxInputLines is how tall the input grows before it scrolls.
const maxInputLines = 8

// input is the prompt editor: a multi-line textarea with a history of the
// prompts sent, recalled with Up and Down while the input is empty or
// still shows a recalled prompt, and the popup that completes a slash
// command being typed. The rule above it is its own.
type input struct {
	st      *theme
	keys    keyMap
	ta      textarea.Model
	history []string
	pos     int    // index in history while browsing; len(history) when not
	draft   string // what the input held when browsing started
	// The textarea rendered, kept while nothing that changes it happened:
	// the TUI lays its screen out after every message, tokens of a reply
	// included, and the input does not change with them.
	rendered string
	fresh    bool
	width    int // the last width set
	// images are the attachments of the prompt being written, shown as
	// chips above it.
	images []provider.Image
	// completion is the command the popup highlights; closed, that Esc
	// closed the popup (an edit opens it again).
	completion int
	closed     bool
	table      []slashCommand // what the popup completes
	rule       struct {
		width int
		line  string
	} // the rule above the input, rendered once per width
}

func newInput(st *theme, keys keyMap) input {
	ta := textarea.New()
	// "›" starts the prompt; its other lines, wrapped or not, line up
	// under its text.
	ta.SetPromptFunc(2, func(l textarea.PromptInfo) string {
		if l.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	ta.Placeholder = "Ask for a change, or / for commands"
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = maxInputLines
	ta.KeyMap.InsertNewline = keys.Newline
	// A steady cursor: a blinking one redraws the screen twice a second
	// while nothing else happens.
	styles := ta.Styles()
	styles.Cursor.Blink = false
	ta.SetStyles(styles)
	ta.Focus()
	// The textarea sizes the cache of its lines' wraps to MaxHeight at
	// its first Update, until then to 10,000 lines: each prompt set from
	// the history (↑) or sent would stay in it.
	ta, _ = ta.Update(nil)
	return input{st: st, keys: keys, ta: ta}
}

// SetSize sets the input's width; its height follows its text.
func (in *input) SetSize(width, _ int) {
	if in.width != width {
		in.ta.SetWidth(width)
		in.width, in.fresh = width, false
	}
}

func (in *input) value() string { return in.ta.Value() }

// View is the textarea, under the chips of its attachments.
func (in *input) View() string {
	if !in.fresh {
		in.rendered, in.fresh = in.ta.View(), true
		if len(in.images) > 0 {
			in.rendered = chipsView(in.images, in.width) + "\n" + in.rendered
		}
	}
	return in.rendered
}

// attach adds images to the prompt being written.
func (in *input) attach(imgs ...provider.Image) {
	in.images = append(in.images, imgs...)
	in.fresh = false
}

// detach removes the last attachment; it reports whether there was one.
func (in *input) detach() bool {
	if len(in.images) == 0 {
		return false
	}
	in.images, in.fresh = in.images[:len(in.images)-1], false
	return true
}

// takeImages returns the attachments and clears them.
func (in *input) takeImages() []provider.Image {
	imgs := in.images
	in.images, in.fresh = nil, false
	return imgs
}

func (in *input) set(s string) {
	in.ta.SetValue(s)
	in.ta.MoveToEnd()
	in.fresh = false
}

// take returns the text and clears the input, remembering the text.
func (in *input) take() string {
	text := strings.TrimSpace(in.ta.Value())
	in.ta.Reset()
	in.fresh = false
	if text != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != text) {
		in.history = append(in.history, text)
		if over := len(in.history) - maxRecall; over > 0 {
			in.history = slices.Delete(in.history, 0, over) // in place: a long day's history stays the same size
		}
	}
	in.pos = len(in.history)
	return text
}

// maxRecall is how many prompts Up can recall, the newest: those of
// earlier sessions (promptHistory) and those sent in this one.
const maxRecall = 2 * promptHistory

// browsing reports whether Up and Down go through the history: the input
// is empty, or holds the recalled prompt unchanged.
func (in *input) browsing() bool { return in.ta.Value() == "" || in.recalled() }

// earlier puts the prompts of earlier sessions, newest first, before the
// history: Up reaches them after the prompts sent here, each once.
func (in *input) earlier(prompts []string) {
	var older []string // oldest first, as the history
	for _, p := range slices.Backward(prompts) {
		if !slices.Contains(in.history, p) && !slices.Contains(older, p) {
			older = append(older, p)
		}
	}
	browsing := in.pos < len(in.history)
	in.history = append(older, in.history...)
	if browsing {
		in.pos += len(older)
	} else {
		in.pos = len(in.history)
	}
}

// recalled reports whether the input shows a prompt of the history,
// unchanged.
func (in *input) recalled() bool {
	return in.pos < len(in.history) && in.ta.Value() == in.history[in.pos]
}

// recall moves through the history by dir (-1 earlier, +1 later).
func (in *input) recall(dir int) {
	if in.pos == len(in.history) {
		in.draft = in.ta.Value()
	}
	next := min(max(in.pos+dir, 0), len(in.history))
	if next == in.pos {
		return
	}
	in.pos = next
	if next == len(in.history) {
		in.set(in.draft)
		return
	}
	in.set(in.history[next])
}

// Update handles what the root model did not take: history keys while
// browsing, the rest (keys, a paste, the cursor) to the textarea.
func (in input) Update(msg tea.Msg) (input, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && in.browsing() {
		switch {
		case key.Matches(k, in.keys.Prev):
			in.recall(-1)
			return in, nil
		case key.Matches(k, in.keys.Next):
			in.recall(+1)
			return in, nil
		}
	}
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	in.fresh = false
	return in, cmd
}

// ruleView is the rule above the input, at its width.
func (in *input) ruleView() string {
	if in.rule.width != in.width {
		in.rule.width, in.rule.line = in.width, in.st.rule.Render(strings.Repeat("─", in.width))
	}
	return in.rule.line
}
