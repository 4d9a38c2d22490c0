package cli

import (
	"strings"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/mode"
	"lathe/prompts/commands"
	"lathe/ui"
)

// customCommand is the prompt of lathe -p: a custom command's when it
// starts with /NAME and a command file is named so (with its model and
// mode for the run, unless -m or --mode say otherwise), else the text as
// it is.
func (c *sessionCommand) customCommand(prompt string, loaded *config.Loaded) (orchestrator.Prompt, error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(prompt, "/"), " ")
	if !strings.HasPrefix(prompt, "/") || name == "" {
		return orchestrator.Prompt{Text: prompt}, nil
	}
	f := c.f
	cmds, warnings := engine.Commands(f.Dir, f.Env.get, ui.CommandNames())
	for _, w := range warnings {
		f.warn(w)
	}
	cmd, ok := commands.Find(cmds, name)
	if !ok {
		return orchestrator.Prompt{Text: prompt}, nil
	}
	if note := cmd.AllowanceNote(); note != "" {
		f.warn(note)
	}
	if cmd.Model != "" && f.Flags.Model == "" {
		loaded.Model = cmd.Model
	}
	if cmd.Mode != "" && c.mode == nil {
		m, err := mode.Parse(cmd.Mode)
		if err != nil {
			return orchestrator.Prompt{}, usagef("%s: mode: %v", cmd.Path, err)
		}
		c.mode = m
	}
	return engine.CommandPrompt(cmd, strings.TrimSpace(args), f.Dir), nil
}
