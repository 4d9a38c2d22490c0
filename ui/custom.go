package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	custom "lathe/prompts/commands"
)

// customCommands are the slash commands of the custom commands' files,
// after lathe's own in the table.
func customCommands(cmds []custom.Command) []slashCommand {
	var out []slashCommand
	for _, c := range cmds {
		help := c.Summary()
		if c.ArgumentHint != "" {
			help = c.ArgumentHint + " · " + help
		}
		if c.Project {
			help += " (project)"
		}
		noted := false // a project's allowed-tools are told of once
		out = append(out, slashCommand{name: c.Name, help: help,
			run: func(m *model, arg string) tea.Cmd {
				if note := c.AllowanceNote(); note != "" && !noted {
					noted = true
					m.notice(noticeWarn, "", note)
				}
				return m.runCustom(c, arg)
			}})
	}
	return out
}

// runCustom sends the prompt a custom command stands for: in its mode
// and with its model, when it names them (switched as /mode and /model
// would, for the rest of the session), expanded as it runs.
func (m *model) runCustom(c custom.Command, arg string) tea.Cmd {
	if m.opts.CommandPrompt == nil {
		return nil
	}
	p := m.opts.CommandPrompt(c, arg)
	p.Text = strings.TrimSpace("/" + c.Name + " " + arg)
	needsMode := c.Mode != "" && c.Mode != m.mode.name
	if (needsMode || c.Model != "" && c.Model != m.conn.info.Name) && m.refuseBusy() {
		return nil
	}
	var switchTo tea.Cmd
	switch {
	case needsMode:
		md, err := mode.Parse(c.Mode)
		if err != nil {
			m.notice(noticeWarn, "", c.Path+": mode: "+err.Error())
			return nil
		}
		switchTo = m.setMode(md, "/"+c.Name, true)
	case c.Model != "" && c.Model != m.conn.info.Name:
		switchTo = m.switchModel(c.Model)
	}
	if switchTo != nil {
		m.queue(p) // sent once the switch is done
		return switchTo
	}
	return m.sendPrompt(p)
}

// sendPrompt sends p, or queues it while something is under way.
func (m *model) sendPrompt(p orchestrator.Prompt) tea.Cmd {
	switch {
	case m.conn.phase == phaseConnecting || m.busy() != "":
		m.queue(p)
		return nil
	case m.conn.phase != phaseReady:
		m.setStatusNote("no model is ready yet: /model chooses one")
		return nil
	}
	return m.startRun(p)
}
