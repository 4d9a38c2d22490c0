package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/pflag"

	"lathe/agent/mode"
	"lathe/config"
	"lathe/print"
	"lathe/prompts"
	"lathe/tools"
)

const usage = `lathe: a coding assistant for models served by Ollama

Usage:
  lathe [flags]                     interactive session in the working directory
  lathe -p, --prompt TEXT [flags]   one-shot: run the request to completion, print the answer, exit
  lathe sessions                    list the saved sessions of the working directory
  lathe --version

Flags:
  -p, --prompt TEXT          the request; "-" reads it from stdin. Piped stdin is appended to it.
  -m, --model NAME           Ollama model (default: config, else the first installed model with tool support)
  -C, --dir DIR              working directory (default: the current directory)
      --yes                  approve every tool call without asking
      --max-turns N          model calls per request (default 10)
      --output-format FMT    text (default), json or stream-json (with -p)
      --continue             continue the latest session in the working directory
      --resume ID            continue the session ID (a unique prefix is enough)
      --mode MODE            start in build (default), plan or ask mode; with -p, plan mode
                             prints the plan and stops, unless --yes carries it out
  -h, --help                 show this help
      --version              print the version

Exit codes: 0 done (or a plan printed), 1 failure, 2 usage or config error, 3 stopped by a limit, 130 interrupted.
Environment: OLLAMA_HOST, LATHE_MODEL, LOG_LEVEL (debug|info|warn|error), NO_COLOR.
Config: $XDG_CONFIG_HOME/lathe/config.toml, then .lathe/config.toml in the project.
`

// command is a parsed command line.
type command struct {
	oneShot  bool
	sessions bool // "lathe sessions"
	prompt   string
	dir      string
	format   print.Format
	flags    config.Flags
	cont     bool      // --continue
	resume   string    // --resume ID
	mode     mode.Mode // --mode; nil when not given
	help     bool
	version  bool
}

func parseArgs(args []string) (command, error) {
	var cmd command
	var format, modeName string
	fs := pflag.NewFlagSet("lathe", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringVarP(&cmd.prompt, "prompt", "p", "", "")
	fs.StringVarP(&cmd.flags.Model, "model", "m", "", "")
	fs.StringVarP(&cmd.dir, "dir", "C", ".", "")
	fs.BoolVar(&cmd.flags.Yes, "yes", false, "")
	fs.IntVar(&cmd.flags.MaxTurns, "max-turns", 0, "")
	fs.StringVar(&format, "output-format", string(print.FormatText), "")
	fs.BoolVar(&cmd.cont, "continue", false, "")
	fs.StringVar(&cmd.resume, "resume", "", "")
	fs.StringVar(&modeName, "mode", "", "")
	fs.BoolVarP(&cmd.help, "help", "h", false, "")
	fs.BoolVar(&cmd.version, "version", false, "")
	if err := fs.Parse(args); err != nil {
		return cmd, err
	}
	cmd.sessions = fs.NArg() == 1 && fs.Arg(0) == "sessions"
	if fs.NArg() > 0 && !cmd.sessions {
		return cmd, fmt.Errorf("unexpected argument %q (quote the request and pass it with -p)", fs.Arg(0))
	}
	cmd.oneShot = fs.Changed("prompt")
	switch {
	case cmd.cont && fs.Changed("resume"):
		return cmd, errors.New("--continue and --resume cannot go together")
	case fs.Changed("resume") && strings.TrimSpace(cmd.resume) == "":
		return cmd, errors.New("--resume needs a session id (lathe sessions lists them)")
	}
	if fs.Changed("max-turns") && cmd.flags.MaxTurns < 1 {
		return cmd, fmt.Errorf("--max-turns must be at least 1")
	}
	if fs.Changed("mode") {
		m, err := mode.Parse(modeName)
		if err != nil {
			return cmd, fmt.Errorf("--mode: %v", err)
		}
		cmd.mode = m
	}
	f, err := print.ParseFormat(format)
	if err != nil {
		return cmd, err
	}
	if fs.Changed("output-format") && !cmd.oneShot {
		return cmd, errors.New("--output-format needs -p")
	}
	cmd.format = f
	cmd.dir, err = workingDir(cmd.dir)
	return cmd, err
}

func workingDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("-C %s: %w", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("-C %s: no such directory", dir)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("-C %s: not a directory", dir)
	}
	return abs, nil
}

// readPrompt returns the request: the -p text, with piped stdin appended,
// or all of stdin for "-p -".
func readPrompt(flag string, stdin io.Reader) (string, error) {
	var piped string
	if flag == "-" || stdinPiped(stdin) {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		piped = strings.TrimRight(string(b), "\n")
	}
	prompt := strings.TrimSpace(flag)
	switch {
	case flag == "-":
		prompt = piped
	case piped != "":
		prompt += "\n\n" + piped
	}
	if strings.TrimSpace(prompt) == "" {
		return "", errors.New("the prompt is empty")
	}
	return prompt, nil
}

// stdinPiped reports whether stdin is a pipe or a file rather than a
// terminal or /dev/null.
func stdinPiped(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok {
		return stdin != nil
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice == 0
}

// isTerminal reports whether v (stdin, stdout or stderr) is a terminal
// (not merely a character device, as /dev/null is).
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// inGitRepo reports whether dir or one of its parents holds a .git entry.
func inGitRepo(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// readInstructions returns the project's AGENTS.md, read through the
// workspace like any file the model could read.
func readInstructions(ws *tools.Workspace, stderr io.Writer) string {
	b, err := ws.Root().ReadFile("AGENTS.md")
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "lathe: warning: AGENTS.md not read: %v\n", err)
		}
		return ""
	}
	if len(b) > prompts.InstructionsLimit {
		fmt.Fprintf(stderr, "lathe: warning: AGENTS.md is %d bytes; only the first %d go into the prompt\n", len(b), prompts.InstructionsLimit)
	}
	return string(b)
}

// checkApprovalTools reports a tool name in the approval rules that no
// tool has: a typo there would silently never allow anything.
func checkApprovalTools(names []string, registry *tools.Registry) error {
	for _, name := range names {
		if _, ok := registry.Lookup(name); !ok {
			return fmt.Errorf("approval.tools: unknown tool %q (the tools are %s)", name, strings.Join(registry.Names(), ", "))
		}
	}
	return nil
}

// openLog opens the log file in dir, creating both as needed.
func openLog(dir string) (*os.File, error) {
	if dir == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(dir, "lathe.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
}

func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "dev"
	}
	return info.Main.Version
}
