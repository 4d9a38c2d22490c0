package ui

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"lathe/prompts/human"
	"lathe/tools/mcp"
)

// elicitDialog asks the user what an MCP server requests: a form built
// from the schema it sent (text, numbers, booleans, choices, its defaults
// filled in), or a URL to open. Enter accepts, ctrl+d declines, Esc
// cancels.
type elicitDialog struct {
	dialogBase
	ask    mcpAsk
	q      mcp.Elicitation
	fields []formField
	focus  int
	err    string // what is wrong with the form, once Enter found it
	window scrollWindow
	result mcp.ElicitAnswer
}

var _ mcpDialog = (*elicitDialog)(nil)

// formField is a field of the form and what the user gave it.
type formField struct {
	f      mcp.Field
	input  textinput.Model // text and numbers
	on     bool            // a boolean
	pick   int             // a choice: the option chosen, -1 for none
	picks  []bool          // choices: the options chosen
	cursor int             // choices: the option under the cursor
	given  bool            // a boolean or choice has a value
}

func newElicitDialog(ask mcpAsk, st *theme, keys keyMap) *elicitDialog {
	d := &elicitDialog{dialogBase: newDialogBase(st, keys), ask: ask, q: *ask.elicit}
	for _, f := range d.q.Fields {
		d.fields = append(d.fields, newFormField(f))
	}
	d.refocus()
	return d
}

// newFormField is a field with its default filled in.
func newFormField(f mcp.Field) formField {
	ff := formField{f: f, pick: -1, picks: make([]bool, len(f.Options))}
	def, err := f.Check(f.Default)
	if f.Default == nil || err != nil {
		def = nil
	}
	switch f.Kind {
	case mcp.KindBool:
		ff.on, ff.given = def == true, def != nil
	case mcp.KindChoice:
		ff.pick = slices.IndexFunc(f.Options, func(o mcp.Option) bool { return o.Value == def })
		ff.given = ff.pick >= 0
		ff.cursor = max(ff.pick, 0)
	case mcp.KindChoices:
		list, _ := def.([]any)
		for i, o := range f.Options {
			ff.picks[i] = slices.Contains(list, any(o.Value))
		}
		ff.given = def != nil
	default:
		ff.input = textinput.New()
		ff.input.Prompt = ""
		if def != nil {
			ff.input.SetValue(valueText(def))
		}
	}
	return ff
}

// valueText is a default as the user would type it.
func valueText(v any) string {
	switch v := v.(type) {
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(v)
}

func (d *elicitDialog) question() mcpAsk { return d.ask }

func (d *elicitDialog) hint() string {
	if d.q.URL != "" {
		return "an MCP server asks you to open a page"
	}
	return "an MCP server asks for input"
}

// cancel answers the server as the user dismissing the question.
func (d *elicitDialog) cancel() { answerAsk(d.ask, mcp.ElicitAnswer{Action: mcp.ActionCancel}) }

// answer sends the server the user's answer.
func (d *elicitDialog) answer() { answerAsk(d.ask, d.result) }

func (d *elicitDialog) decide(a mcp.ElicitAnswer) tea.Cmd {
	d.result = a
	return d.close(d)
}

// Update handles a key: the focused field takes it, or it moves between
// fields, or it answers.
func (d *elicitDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	if !ok {
		return d, nil
	}
	keys := d.keys
	switch {
	case key.Matches(k, keys.Interrupt):
		return d, d.decide(mcp.ElicitAnswer{Action: mcp.ActionCancel})
	case key.Matches(k, keys.Decline):
		return d, d.decide(mcp.ElicitAnswer{Action: mcp.ActionDecline})
	case d.q.URL != "" && key.Matches(k, keys.Deny):
		return d, d.decide(mcp.ElicitAnswer{Action: mcp.ActionDecline})
	case d.q.URL != "" && key.Matches(k, keys.Allow):
		return d, d.decide(mcp.ElicitAnswer{Action: mcp.ActionAccept})
	case d.q.URL != "":
		return d, nil
	case key.Matches(k, keys.Send):
		return d, d.submit()
	case key.Matches(k, keys.Complete, keys.Next):
		d.move(1)
		return d, nil
	case key.Matches(k, keys.CycleMode, keys.Prev):
		d.move(-1)
		return d, nil
	}
	if len(d.fields) == 0 {
		return d, nil
	}
	return d, d.fields[d.focus].update(k, keys)
}

// move focuses the next field (or the previous, by -1).
func (d *elicitDialog) move(by int) {
	if len(d.fields) > 0 {
		d.focus = (d.focus + by + len(d.fields)) % len(d.fields)
	}
	d.refocus()
}

func (d *elicitDialog) refocus() {
	for i := range d.fields {
		if d.fields[i].input.Focused() {
			d.fields[i].input.Blur()
		}
	}
	if len(d.fields) > 0 && d.fields[d.focus].hasInput() {
		d.fields[d.focus].input.Focus()
	}
}

// submit accepts the form when every field holds what it takes, else
// focuses the first that does not and says why.
func (d *elicitDialog) submit() tea.Cmd {
	content := map[string]any{}
	for i, ff := range d.fields {
		v, set, err := ff.value()
		if err == nil && !set && ff.f.Required {
			err = fmt.Errorf("required")
		}
		if err != nil {
			d.focus, d.err = i, ff.f.Label()+": "+err.Error()
			d.refocus()
			return nil
		}
		if set {
			content[ff.f.Name] = v
		}
	}
	return d.decide(mcp.ElicitAnswer{Action: mcp.ActionAccept, Content: content})
}

func (ff *formField) hasInput() bool {
	switch ff.f.Kind {
	case mcp.KindBool, mcp.KindChoice, mcp.KindChoices:
		return false
	}
	return true
}

// update hands the field a key.
func (ff *formField) update(k tea.KeyPressMsg, keys keyMap) tea.Cmd {
	n := len(ff.f.Options)
	switch ff.f.Kind {
	case mcp.KindBool:
		if key.Matches(k, keys.Toggle, keys.OptionPrev, keys.OptionNext) {
			ff.on, ff.given = !ff.on || !ff.given, true
		}
	case mcp.KindChoice:
		switch {
		case n == 0:
		case key.Matches(k, keys.OptionNext), key.Matches(k, keys.Toggle):
			ff.pick, ff.given = (ff.pick+1)%n, true
		case key.Matches(k, keys.OptionPrev):
			ff.pick, ff.given = (max(ff.pick, 0)-1+n)%n, true
		}
	case mcp.KindChoices:
		switch {
		case n == 0:
		case key.Matches(k, keys.OptionNext):
			ff.cursor = (ff.cursor + 1) % n
		case key.Matches(k, keys.OptionPrev):
			ff.cursor = (ff.cursor - 1 + n) % n
		case key.Matches(k, keys.Toggle):
			ff.picks[ff.cursor], ff.given = !ff.picks[ff.cursor], true
		}
	default:
		var cmd tea.Cmd
		ff.input, cmd = ff.input.Update(k)
		return cmd
	}
	return nil
}

// value is what the field holds: its value, whether it has one, and what
// is wrong with it.
func (ff *formField) value() (any, bool, error) {
	var v any
	switch ff.f.Kind {
	case mcp.KindBool:
		if !ff.given {
			return nil, false, nil
		}
		v = ff.on
	case mcp.KindChoice:
		if ff.pick < 0 {
			return nil, false, nil
		}
		v = ff.f.Options[ff.pick].Value
	case mcp.KindChoices:
		var list []any
		for i, on := range ff.picks {
			if on {
				list = append(list, ff.f.Options[i].Value)
			}
		}
		if !ff.given && len(list) == 0 {
			return nil, false, nil
		}
		v = list
	default:
		text := strings.TrimSpace(ff.input.Value())
		if text == "" {
			return nil, false, nil
		}
		parsed, err := ff.f.Parse(text)
		return parsed, err == nil, err
	}
	checked, err := ff.f.Check(v)
	return checked, err == nil, err
}

// View renders the question in at most the dialog's height: the form
// scrolls to keep the focused field in view.
func (d *elicitDialog) View() string {
	st, width := d.st, d.width
	server := human.Visible(d.q.Server)
	title := fmt.Sprintf("MCP server %s asks: %s", server, human.Visible(d.q.Message))
	if d.q.URL != "" {
		title = fmt.Sprintf("MCP server %s asks you to open a page: %s", server, human.Visible(d.q.Message))
	}
	head := append([]string{d.rule()}, wrap("? "+title, width, " ", "   ", st.dialogTitle)...)
	foot := d.footer()
	room := max(d.height-len(head)-len(foot), 1)
	var body []string
	if d.q.URL != "" {
		body = d.urlLines()
	} else {
		body = d.formLines(room)
	}
	return strings.Join(append(append(head, body...), foot...), "\n")
}

// urlLines show the URL whole, and the host it leads to apart: what a
// link's text could hide.
func (d *elicitDialog) urlLines() []string {
	st, width := d.st, d.width
	lines := wrap(human.Visible(d.q.URL), width, indent+"  ", indent+"  ", st.subject)
	if u, err := url.Parse(d.q.URL); err == nil && u.Host != "" {
		lines = append(lines, indent+"  "+st.meta.Render("it leads to "+human.Visible(u.Host)))
	}
	return lines
}

// formLines are the fields, a line each, the focused one with what it
// takes below it, in at most room lines around the focused field.
func (d *elicitDialog) formLines(room int) []string {
	st, width := d.st, d.width
	labelWidth := 0
	for _, ff := range d.fields {
		labelWidth = max(labelWidth, len([]rune(ff.label())))
	}
	labelWidth = min(labelWidth, width/3)
	var lines []string
	at, end := 0, 0 // the focused field's lines
	for i, ff := range d.fields {
		mark := "  "
		if i == d.focus {
			mark, at = "› ", len(lines)
		}
		label := human.Line(ff.label(), labelWidth)
		label += strings.Repeat(" ", max(labelWidth-len([]rune(label)), 0))
		line := indent + mark + st.plain.Render(label) + "  " + ff.view(i == d.focus, width-labelWidth-8, st)
		lines = append(lines, line)
		if i == d.focus {
			about := ff.f.Description
			if h := ff.f.Hint(); h != "" && ff.hasInput() {
				about = strings.TrimSpace(about + " (" + h + ")")
			}
			if about != "" {
				lines = append(lines, wrap(human.Visible(about), width, indent+"    ", indent+"    ", st.meta)...)
			}
			end = len(lines) - 1
		}
	}
	if d.err != "" {
		lines = append(lines, wrap("! "+human.Visible(d.err), width, indent, indent+"  ", st.warn)...)
	}
	if len(lines) <= room {
		return lines
	}
	shown := max(room-1, 1) // a line says where the view is
	switch {
	case at < d.window.top:
		d.window.top = at
	case end >= d.window.top+shown:
		d.window.top = max(end-shown+1, 0)
	}
	from, to := d.window.fit(len(lines), room)
	return append(lines[from:to], indent+st.meta.Render(fmt.Sprintf("fields %d of %d · tab ↑↓ move", d.focus+1, len(d.fields))))
}

// label is the field's name as shown: its title, marked when required.
func (ff *formField) label() string {
	l := human.Visible(ff.f.Label())
	if ff.f.Required {
		l += " *"
	}
	return l
}

// view is the field's value as shown: the text being typed, a box, the
// choice between arrows, or the choices with boxes.
func (ff *formField) view(focused bool, width int, st *theme) string {
	switch ff.f.Kind {
	case mcp.KindBool:
		box := "[ ]"
		if ff.on {
			box = "[x]"
		}
		if !ff.given {
			box = "[-] not given"
		}
		return st.subject.Render(box)
	case mcp.KindChoice:
		v := "(none)"
		if ff.pick >= 0 {
			v = optionTitle(ff.f.Options[ff.pick])
		}
		if focused {
			v = "‹ " + v + " ›"
		}
		return st.subject.Render(human.Line(v, max(width, 10)))
	case mcp.KindChoices:
		var parts []string
		for i, o := range ff.f.Options {
			box := "[ ]"
			if ff.picks[i] {
				box = "[x]"
			}
			p := box + " " + optionTitle(o)
			if focused && i == ff.cursor {
				p = st.accent.Render(p)
			} else {
				p = st.subject.Render(p)
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, "  ")
	}
	ff.input.SetWidth(max(width, 10))
	return ff.input.View()
}

// optionTitle is what an option is called: its title, else its value.
func optionTitle(o mcp.Option) string {
	if o.Title != "" {
		return human.Visible(o.Title)
	}
	return human.Visible(o.Value)
}

// footer lists the choices.
func (d *elicitDialog) footer() []string {
	st, keys := d.st, d.keys
	var choices []string
	if d.q.URL != "" {
		choices = []string{choice(st, keys.Allow, "I will open it"), choice(st, keys.Deny, "decline"), choice(st, keys.Interrupt, "cancel")}
	} else {
		choices = []string{choice(st, keys.Send, "send"), st.key.Render("tab ↑↓") + " move"}
		if len(d.fields) > 0 {
			switch d.fields[d.focus].f.Kind {
			case mcp.KindBool:
				choices = append(choices, choice(st, keys.Toggle, "turn on or off"))
			case mcp.KindChoice:
				choices = append(choices, st.key.Render("← →")+" choose")
			case mcp.KindChoices:
				choices = append(choices, st.key.Render("← →")+" move", choice(st, keys.Toggle, "choose"))
			}
		}
		choices = append(choices, choice(st, keys.Decline, "decline"), choice(st, keys.Interrupt, "cancel"))
	}
	return joinWrapped(choices, st.meta.Render("  ·  "), d.width)
}
