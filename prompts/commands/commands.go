// Package commands reads the user's custom slash commands, Markdown files
// in Claude Code's format (front matter, then the prompt), and expands one
// into the request it stands for: its arguments put in, the files it
// names included, the commands it names run.
package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"lathe/config/safefile"
	"lathe/prompts/frontmatter"
)

// Command is one custom command: /Name.
type Command struct {
	// Name is what follows "/": the file's name without ".md", with the
	// folders it is in before it ("frontend:component").
	Name         string
	Description  string
	ArgumentHint string
	// Model and Mode, when set, are the model and the mode the command
	// runs with.
	Model, Mode string
	// AllowedTools is what the file says the command may use: in a
	// command of the user's own, what its request runs without asking;
	// in a project's, nothing (see the README).
	AllowedTools []string
	// Body is the prompt, with $ARGUMENTS, $1…, @path and !`command` in it.
	Body string
	// Path is the file; Project says it is the project's.
	Path    string
	Project bool
}

// front is a command file's front matter.
type front struct {
	Description  string    `yaml:"description"`
	ArgumentHint string    `yaml:"argument-hint"`
	Model        string    `yaml:"model"`
	Mode         string    `yaml:"mode"`
	AllowedTools stringish `yaml:"allowed-tools"`
}

// stringish is a list written as a YAML list or as one string of
// comma-separated items, as Claude Code takes both.
type stringish []string

// UnmarshalYAML implements yaml.Unmarshaler.
func (s *stringish) UnmarshalYAML(unmarshal func(any) error) error {
	var list []string
	if err := unmarshal(&list); err == nil {
		*s = list
		return nil
	}
	var one string
	if err := unmarshal(&one); err != nil {
		return err
	}
	for _, part := range strings.Split(one, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*s = append(*s, part)
		}
	}
	return nil
}

// Dirs are where commands are found, the first to name a command winning.
type Dirs struct {
	// Workspace is the project: its .lathe/commands, then .claude/commands.
	Workspace string
	// User is the user's own folder (~/.config/lathe/commands).
	User string
}

// ProjectDirs are the project's folders of commands, relative to it.
var ProjectDirs = []string{".lathe/commands", ".claude/commands"}

// MaxFile is the largest command file read.
const MaxFile = 256 << 10

// Load finds the commands, sorted by name. A file that cannot be read or
// whose front matter is broken is left out with a warning naming it (and
// its line); so is one named as one of reserved (the UI's own commands,
// which a file never shadows), and one whose name an earlier folder took.
func Load(dirs Dirs, reserved []string) (cmds []Command, warnings []string) {
	seen := map[string]string{} // name → the file that has it
	add := func(c Command, err error) {
		switch {
		case err != nil:
			warnings = append(warnings, err.Error())
		case slices.Contains(reserved, c.Name):
			warnings = append(warnings, fmt.Sprintf("%s: left out: /%s is one of lathe's own commands", c.Path, c.Name))
		case seen[c.Name] != "":
			warnings = append(warnings, fmt.Sprintf("%s: left out: /%s is taken by %s", c.Path, c.Name, seen[c.Name]))
		default:
			seen[c.Name] = c.Path
			cmds = append(cmds, c)
		}
	}
	if dirs.Workspace != "" {
		for _, rel := range ProjectDirs {
			walk(dirs.Workspace, rel, true, add)
		}
	}
	if dirs.User != "" {
		walk(dirs.User, ".", false, add)
	}
	slices.SortFunc(cmds, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	return cmds, warnings
}

// walk reads the command files under root/rel (a project's through
// safefile: no link leads out of it), and gives each to add.
func walk(root, rel string, project bool, add func(Command, error)) {
	base := filepath.Join(root, rel)
	_ = filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && path == base:
			return fs.SkipDir // no such folder
		case err != nil:
			add(Command{}, fmt.Errorf("%s: not read: %w", path, err))
			return nil
		case d.IsDir():
			return nil
		case !strings.HasSuffix(d.Name(), ".md"):
			return nil
		}
		inner, _ := filepath.Rel(base, path)
		name := strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(inner), ".md"), "/", ":")
		add(read(root, filepath.Join(rel, inner), path, name, project))
		return nil
	})
}

// read reads one command file.
func read(root, rel, path, name string, project bool) (Command, error) {
	var data []byte
	var err error
	if project {
		data, err = safefile.Read(root, filepath.ToSlash(rel), MaxFile)
	} else {
		data, err = safefile.ReadPath(path, MaxFile)
	}
	if err != nil {
		return Command{}, fmt.Errorf("%s: not read: %w", path, err)
	}
	var f front
	body, err := frontmatter.Parse(data, &f)
	if fe := (*frontmatter.Error)(nil); errors.As(err, &fe) && fe.Line > 0 {
		return Command{}, fmt.Errorf("%s:%d: its front matter is broken (%s): left out", path, fe.Line, fe.Msg)
	} else if err != nil {
		return Command{}, fmt.Errorf("%s: its front matter is broken (%v): left out", path, err)
	}
	return Command{Name: name, Description: strings.TrimSpace(f.Description), ArgumentHint: strings.TrimSpace(f.ArgumentHint),
		Model: strings.TrimSpace(f.Model), Mode: strings.TrimSpace(f.Mode), AllowedTools: f.AllowedTools,
		Body: string(body), Path: path, Project: project}, nil
}

// AllowanceNote is what to tell the user of a project's command that
// declares allowed-tools, which approve nothing; "" for any other.
func (c Command) AllowanceNote() string {
	if !c.Project || len(c.AllowedTools) == 0 {
		return ""
	}
	return c.Path + ": allowed-tools approves nothing in a project's command (a project's file must not approve its own commands)"
}

// Allowance is what lathe approves of what a command's allowed-tools
// say: whole tools, the commands that start with a prefix (as an
// approval rule), and exact commands.
type Allowance struct {
	Tools, Prefixes, Commands []string
}

// Allowed is what c's allowed-tools approve, in Claude Code's names or
// lathe's: Bash (all commands), Bash(PREFIX:*) or Bash(PREFIX *) (the
// commands that start with PREFIX), Bash(COMMAND) (that command), Edit
// and MultiEdit (edit_file), Write (write_file), mcp__SERVER__TOOL (the
// server's tool), and lathe's own tool names. Read, Glob, Grep and LS
// need no approval; what names nothing lathe has (a path pattern, a
// wildcard elsewhere, a whole MCP server) approves nothing. Whether a
// command may approve at all is its caller's to say (Project).
func (c Command) Allowed() Allowance {
	var a Allowance
	for _, item := range c.AllowedTools {
		item = strings.TrimSpace(item)
		name, arg, hasArg := strings.Cut(item, "(")
		if hasArg {
			var ok bool
			if arg, ok = strings.CutSuffix(arg, ")"); !ok {
				continue
			}
			arg = strings.TrimSpace(arg)
		}
		name = strings.TrimSpace(name)
		switch {
		case name == "Bash" || name == "shell":
			prefix, isPrefix := strings.CutSuffix(arg, ":*")
			if !isPrefix {
				prefix, isPrefix = strings.CutSuffix(arg, " *")
			}
			switch {
			case !hasArg || arg == "*":
				a.Tools = append(a.Tools, "shell")
			case isPrefix && strings.TrimSpace(prefix) != "" && !strings.Contains(prefix, "*"):
				a.Prefixes = append(a.Prefixes, strings.TrimSpace(prefix))
			case arg != "" && !strings.Contains(arg, "*"):
				a.Commands = append(a.Commands, arg)
			}
		case hasArg || name == "" || strings.Contains(name, "*"):
			// a path pattern or a wildcard: lathe's approvals have none
		case name == "Read" || name == "Glob" || name == "Grep" || name == "LS":
		case name == "Edit" || name == "MultiEdit":
			a.Tools = append(a.Tools, "edit_file")
		case name == "Write":
			a.Tools = append(a.Tools, "write_file")
		case strings.HasPrefix(name, "mcp__"):
			if tool := strings.TrimPrefix(name, "mcp__"); strings.Contains(tool, "__") {
				a.Tools = append(a.Tools, tool)
			}
		default:
			a.Tools = append(a.Tools, name)
		}
	}
	return a
}

// Find returns the command named name.
func Find(cmds []Command, name string) (Command, bool) {
	i := slices.IndexFunc(cmds, func(c Command) bool { return c.Name == name })
	if i < 0 {
		return Command{}, false
	}
	return cmds[i], true
}

// Summary is a line for people: the description, else the body's first
// line.
func (c Command) Summary() string {
	if c.Description != "" {
		return c.Description
	}
	line, _, _ := strings.Cut(strings.TrimSpace(c.Body), "\n")
	return line
}
