package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"lathe/prompts/human"
	"lathe/tools/mcp"
)

// samplingDialog asks whether the model may answer an MCP server's
// messages: it shows the server, what it sends the model, the tools it
// offers and the token limit. Allowed for the session, the server's next
// requests are not asked about.
type samplingDialog struct {
	dialogBase
	ask      mcpAsk
	q        mcp.SamplingRequest
	window   scrollWindow
	folded   foldedRows // what the model would be sent, folded to the width: shown whole
	decision mcp.SamplingDecision
}

var _ mcpDialog = (*samplingDialog)(nil)

func newSamplingDialog(ask mcpAsk, st *theme, keys keyMap) *samplingDialog {
	return &samplingDialog{dialogBase: newDialogBase(st, keys), ask: ask, q: *ask.sample}
}

func (d *samplingDialog) question() mcpAsk { return d.ask }
func (d *samplingDialog) hint() string     { return "an MCP server asks for the model" }
func (d *samplingDialog) cancel()          { answerAsk(d.ask, mcp.SamplingDecision{}) }
func (d *samplingDialog) answer()          { answerAsk(d.ask, d.decision) }

// Update handles a key: a choice answers; the messages scroll.
func (d *samplingDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	if !ok {
		return d, nil
	}
	if d.window.key(k, d.keys, len(d.lines())) {
		return d, nil
	}
	switch {
	case key.Matches(k, d.keys.Allow):
		d.decision = mcp.SamplingDecision{Allow: true}
	case key.Matches(k, d.keys.AllowSession):
		d.decision = mcp.SamplingDecision{Allow: true, Session: true}
	case key.Matches(k, d.keys.Deny), key.Matches(k, d.keys.Interrupt):
		d.decision = mcp.SamplingDecision{}
	default:
		return d, nil
	}
	return d, d.close(d)
}

// lines are what the model would be sent: the system prompt and the
// messages, a role before each, then the tools.
func (d *samplingDialog) lines() []string {
	var out []string
	add := func(role, text string) {
		for i, l := range strings.Split(human.Visible(strings.TrimSpace(text)), "\n") {
			if i == 0 {
				l = role + ": " + l
			} else {
				l = strings.Repeat(" ", len(role)+2) + l
			}
			out = append(out, l)
		}
	}
	if d.q.System != "" {
		add("system", d.q.System)
	}
	for _, m := range d.q.Messages {
		text := m.Content
		for _, c := range m.ToolCalls {
			text += fmt.Sprintf("\n[calls %s %s]", c.Name, c.Args())
		}
		if len(m.Images) > 0 {
			text += "\n[" + human.Plural(len(m.Images), "image") + "]"
		}
		add(m.Role, text)
	}
	if len(d.q.Tools) > 0 {
		names := make([]string, len(d.q.Tools))
		for i, t := range d.q.Tools {
			names[i] = t.Name
		}
		out = append(out, "tools it may call: "+human.Visible(strings.Join(names, ", ")))
	}
	return out
}

// View renders the dialog in at most its height.
func (d *samplingDialog) View() string {
	st, width := d.st, d.width
	limit := "no limit on its length"
	if d.q.MaxTokens > 0 {
		limit = "at most " + human.Plural(d.q.MaxTokens, "token")
	}
	title := fmt.Sprintf("MCP server %s asks the model to answer this (%s). Allow it?", human.Visible(d.q.Server), limit)
	head := append([]string{d.rule()}, wrap("? "+title, width, " ", "   ", st.dialogTitle)...)
	if len(d.q.Hints) > 0 {
		head = append(head, wrap("it would like "+human.Visible(strings.Join(d.q.Hints, ", "))+
			"; an installed model of that name answers, else the one in use", width, indent, indent, st.meta)...)
	}
	foot := joinWrapped([]string{
		choice(st, d.keys.Allow, "allow once"),
		choice(st, d.keys.AllowSession, "allow "+human.Visible(d.q.Server)+" for this session"),
		choice(st, d.keys.Deny, "deny"),
	}, st.meta.Render("  ·  "), width)
	room := max(d.height-len(head)-len(foot), 1)
	rows := d.folded.at(width-bodyIndent, d.lines)
	from, to := d.window.fit(len(rows), room)
	body := make([]string, 0, room)
	for _, r := range rows[from:to] {
		lead := indent + "  "
		if r.cont {
			lead = indent + " " + st.meta.Render("↪")
		}
		body = append(body, lead+st.subject.Render(r.text))
	}
	if where := d.window.where(len(rows), width-4); where != "" {
		body = append(body, indent+"  "+st.meta.Render(where))
	}
	return strings.Join(append(append(head, body...), foot...), "\n")
}
