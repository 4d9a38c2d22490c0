package engine

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"

	"lathe/config"
	"lathe/config/safefile"
	"lathe/orchestrator"
	"lathe/prompts"
	"lathe/prompts/commands"
)

// Commands finds the custom commands of the project in dir and the
// user's own (beside the user's config file, in commands/), leaving out
// the names reserved (the UI's own commands); the warnings name each file
// left out, and why.
func Commands(dir string, getenv func(string) string, reserved []string) ([]commands.Command, []string) {
	user := ""
	if f := config.UserFile(getenv); f != "" {
		user = filepath.Join(filepath.Dir(f), "commands")
	}
	return commands.Load(commands.Dirs{Workspace: dir, User: user}, reserved)
}

// CommandPrompt is the prompt custom command c makes with args, in the
// workspace dir: its text as the user typed it, expanded as it runs (its
// @path files read from the workspace, never through a link out of it).
func CommandPrompt(c commands.Command, args, dir string) orchestrator.Prompt {
	read := func(path string) ([]byte, error) {
		b, err := safefile.Read(dir, filepath.ToSlash(path), prompts.IncludedFileLimit+1)
		switch {
		case errors.Is(err, safefile.ErrTooLarge):
			err = nil // its first bytes, and a note that it was cut
		case err != nil:
			return nil, err
		}
		if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			return nil, errors.New("a binary file")
		}
		return b, nil
	}
	text := "/" + c.Name
	if args != "" {
		text += " " + args
	}
	p := orchestrator.Prompt{Text: text, Expand: func(ctx context.Context, run func(context.Context, string) string) string {
		return c.Expand(ctx, args, commands.Env{Read: read, Run: run})
	}}
	if !c.Project {
		a := c.Allowed()
		p.Allow = orchestrator.Allowance{Tools: a.Tools, Prefixes: a.Prefixes, Commands: a.Commands}
	}
	return p
}
