package ui

import (
	"fmt"
	"lathe/orchestrator/mode"
	"lathe/prompts/human"
	"lathe/tools"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// slashCommand is one of the commands typed as /name.
type slashCommand struct {
	name string
	help string
	run  func(m *model, arg string) tea.Cmd
	// with names the command /help lists this one with, on its line.
	with string
}

// commands is the table of lathe's own slash commands, in the order
// /help lists them. The model's table (model.slash) adds those that come
// from elsewhere (custom commands' files) after them.
func commands() []slashCommand {
	return []slashCommand{
		{"help", "list the commands and keys", (*model).cmdHelp, ""},
		{"new", "start a new session", (*model).cmdNew, ""},
		{"sessions", "resume a saved session of this directory", (*model).cmdSessions, ""},
		{"search", "find saved messages: /search WORDS; enter resumes there", (*model).cmdSearch, "sessions"},
		{"compact", "summarize the conversation for the model now", (*model).cmdCompact, ""},
		{"undo", "take back the last request: its file changes and the exchange", (*model).cmdUndo, ""},
		{"redo", "do the request undone last again", (*model).cmdRedo, "undo"},
		{"rewind", "go back to before an earlier request", (*model).cmdRewind, "undo"},
		{"clear", "start a new session (as /new)", (*model).cmdNew, "new"},
		{"model", "choose the model from those installed", (*model).cmdModel, ""},
		{"context", "how the context window is used", (*model).cmdContext, ""},
		{"mode", "list the modes, or switch: /mode build, plan or ask", (*model).cmdMode, ""},
		{"plan", "the plan; /plan go approves one kept, or goes on with one unfinished", (*model).cmdPlan, "mode"},
		{"tools", "list the tools and which ones ask first", (*model).cmdTools, ""},
		{"mcp", "the MCP servers; on NAME, off NAME, reload, trust", (*model).cmdMCP, "tools"},
		{"hooks", "the hooks configured, and where from; trust", (*model).cmdHooks, "tools"},
		{"skills", "the skills found, and where from", (*model).cmdSkills, "context"},
		{"permissions", "what this session allows without asking; revoke N", (*model).cmdPermissions, ""},
		{"memory", "the facts remembered here; rm N, edit N TEXT", (*model).cmdMemory, "permissions"},
		{"quit", "quit lathe", (*model).cmdQuit, ""},
	}
}

// CommandNames are the names of lathe's own slash commands, which no
// other command (a custom command's file) may take.
func CommandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// findCommand resolves what follows "/" in table: an exact name or a
// unique prefix.
func findCommand(table []slashCommand, name string) (slashCommand, bool) {
	var found []slashCommand
	for _, c := range table {
		if c.name == name {
			return c, true
		}
		if strings.HasPrefix(c.name, name) {
			found = append(found, c)
		}
	}
	if len(found) == 1 && name != "" {
		return found[0], true
	}
	return slashCommand{}, false
}

// completions are the commands that complete what the input holds, when
// it is a command being typed ("/", "/mo").
func completions(table []slashCommand, text string) []slashCommand {
	name, ok := strings.CutPrefix(text, "/")
	if !ok || strings.ContainsAny(name, " \n") {
		return nil
	}
	var out []slashCommand
	for _, c := range table {
		switch {
		case c.name == name:
			out = append([]slashCommand{c}, out...) // "/mode" is not "/model"
		case strings.HasPrefix(c.name, name):
			out = append(out, c)
		}
	}
	return out
}

// runCommand runs a line that starts with "/".
func (m *model) runCommand(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	m.transcript.scrollToBottom()
	c, ok := findCommand(m.slash, name)
	if !ok {
		m.notice(noticeWarn, "", fmt.Sprintf("unknown command /%s: /help lists the commands", name))
		if m.input.value() == "" {
			m.input.set(line) // to mend
		}
		return nil
	}
	return c.run(m, strings.TrimSpace(arg))
}

// cmdHelp shows the commands and keys, from their first line.
func (m *model) cmdHelp(string) tea.Cmd {
	h := &helpItem{}
	all := m.slash
	for _, c := range all {
		if c.with != "" {
			continue
		}
		name, help := "/"+c.name, c.help
		for _, o := range all {
			if o.with == c.name {
				name += ", /" + o.name
			}
		}
		switch c.name {
		case "undo":
			help = "take back the last request and its file changes"
		case "new":
			help = "start a new session"
		case "sessions":
			help = "resume a saved session, or find one by its words"
		case "permissions":
			help = "what is allowed without asking; what is remembered"
		case "tools":
			help = "the tools and which ask first; MCP servers; hooks"
		case "mode":
			help = "list or switch modes; /plan go carries out the plan"
		case "context":
			help = "how the context window is used; the skills found"
		}
		h.commands = append(h.commands, [2]string{name, help})
	}
	for _, k := range m.keys.helpKeys() {
		h.keys = append(h.keys, [2]string{k.Help().Key, k.Help().Desc})
	}
	m.transcript.add(h)
	m.transcript.reveal(len(m.transcript.items) - 1)
	return nil
}

// cmdTools lists the tools the model is offered in the current mode and
// what becomes of their calls, the grants of this session included; then
// those of the other modes, and those left out of the session.
func (m *model) cmdTools(string) tea.Cmd {
	item := &tableItem{title: "Tools in " + m.mode.name + " mode"}
	offered := m.currentMode().Tools(m.opts.Engine.Tools)
	var elsewhere, withheld []string
	for _, t := range mode.Every(m.opts.Engine.Tools).All() {
		name := t.Name()
		_, ok := offered.Lookup(name)
		switch {
		case slices.Contains(m.conn.withheld, name):
			withheld = append(withheld, name)
		case ok:
			item.rows = append(item.rows, [2]string{name, m.toolNote(t)})
		case t.Kind() == tools.KindRead || t.Kind() == tools.KindWrite || t.Kind() == tools.KindExec:
			elsewhere = append(elsewhere, name) // not another mode's own tool
		}
	}
	var foot []string
	if len(elsewhere) > 0 {
		foot = append(foot, "Not in "+m.mode.name+" mode: "+strings.Join(elsewhere, ", ")+" (/mode lists the modes).")
	}
	if len(withheld) > 0 {
		foot = append(foot, "Left out of this session, as they cannot answer here: "+strings.Join(withheld, ", ")+
			" (lathe doctor says why).")
	}
	item.foot = strings.Join(foot, " ")
	m.transcript.add(item)
	return nil
}

// toolNote says what becomes of the calls of a tool offered: whether they
// ask first, or what allows them without asking.
func (m *model) toolNote(t tools.Tool) string {
	granted, commands := m.approver.grants.List()
	switch a := m.opts.Engine.Config.Approval; {
	case !t.Kind().NeedsApproval() && t.Kind() == tools.KindRead:
		return "runs without asking"
	case !t.Kind().NeedsApproval():
		desc, _, _ := strings.Cut(t.Spec().Description, ". ")
		return strings.TrimSuffix(desc, ".")
	case a.All:
		return "allowed by --yes"
	case slices.Contains(granted, t.Name()):
		return "allowed for this session (/permissions)"
	case slices.Contains(a.Tools, t.Name()):
		return "allowed by your config"
	case t.Kind() == tools.KindExec && len(commands)+len(a.Commands) > 0:
		return fmt.Sprintf("asks first, except %s allowed (/permissions)", human.Plural(len(commands)+len(a.Commands), "command"))
	}
	return "asks first"
}

func (m *model) cmdQuit(string) tea.Cmd { return m.quit() }

// cmdPermissions lists what the user allowed for this session, numbered,
// and revokes one: /permissions revoke N.
func (m *model) cmdPermissions(arg string) tea.Cmd {
	if rest, ok := strings.CutPrefix(arg, "revoke"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil || !m.approver.grants.Revoke(n) {
			m.notice(noticeWarn, "", "no permission "+strings.TrimSpace(rest)+": /permissions lists them")
			return nil
		}
		m.notice(noticeInfo, "", fmt.Sprintf("Permission %d revoked: it asks again.", n))
		return nil
	}
	toolNames, commands := m.approver.grants.List()
	var b strings.Builder
	n := 0
	for _, t := range toolNames {
		n++
		fmt.Fprintf(&b, "%d. %s: every call (but writes into .git)\n", n, t)
	}
	for _, c := range commands {
		n++
		fmt.Fprintf(&b, "%d. shell: %s\n", n, human.Line(c, max(m.width-20, 20)))
	}
	if n == 0 {
		b.WriteString("Nothing yet: calls that write or run a command ask first.\n")
	} else {
		b.WriteString("\n/permissions revoke N takes one back; a new session starts with none.\n")
	}
	if a := m.opts.Engine.Config.Approval; a.All || len(a.Tools)+len(a.Commands) > 0 {
		b.WriteString("Also allowed by the command line or your config: ")
		var parts []string
		if a.All {
			parts = append(parts, "everything (--yes)")
		}
		parts = append(parts, a.Tools...)
		for _, c := range a.Commands {
			parts = append(parts, fmt.Sprintf("%q commands", c))
		}
		b.WriteString(strings.Join(parts, ", ") + "\n")
	}
	m.notice(noticeInfo, "Permissions for this session", strings.TrimRight(b.String(), "\n"))
	return nil
}
