package engine

import (
	"slices"
	"testing"

	"lathe/prompts/commands"
)

// TestCommandPromptAllowsOnlyTheUsersCommands: a command of the user's
// own folder approves what its allowed-tools say for its request; a
// project's command approves nothing, and the user is told.
func TestCommandPromptAllowsOnlyTheUsersCommands(t *testing.T) {
	c := commands.Command{Name: "ship", AllowedTools: []string{"Write", "Bash(git status)"}, Path: "/home/u/.config/lathe/commands/ship.md"}
	p := CommandPrompt(c, "", t.TempDir())
	if !slices.Equal(p.Allow.Tools, []string{"write_file"}) || !slices.Equal(p.Allow.Commands, []string{"git status"}) {
		t.Errorf("the user's command allows %+v", p.Allow)
	}
	if note := c.AllowanceNote(); note != "" {
		t.Errorf("the user's command has a note: %q", note)
	}
	c.Project, c.Path = true, "/src/p/.claude/commands/ship.md"
	p = CommandPrompt(c, "", t.TempDir())
	if len(p.Allow.Tools)+len(p.Allow.Prefixes)+len(p.Allow.Commands) != 0 {
		t.Errorf("a project's command allows %+v", p.Allow)
	}
	if note := c.AllowanceNote(); note != "/src/p/.claude/commands/ship.md: allowed-tools approves nothing in a project's command (a project's file must not approve its own commands)" {
		t.Errorf("note = %q", note)
	}
	c.AllowedTools = nil
	if note := c.AllowanceNote(); note != "" {
		t.Errorf("a project's command without allowed-tools has a note: %q", note)
	}
}
