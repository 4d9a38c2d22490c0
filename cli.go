package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/pflag"

	"lathe/agent/mode"
	"lathe/config"
	"lathe/print"
)

const usage = `lathe: a coding assistant for models you run yourself

Usage:
  lathe [flags]                     interactive session in the working directory
  lathe -p, --prompt TEXT [flags]   one-shot: run the request to completion, print the answer, exit
  lathe sessions                    list the saved sessions of the working directory
  lathe --version

Flags:
  -p, --prompt TEXT          the request; "-" reads it from stdin. Piped stdin is appended to it.
  -m, --model NAME           model (default: config, else an installed local model with tool support)
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
	sub     string // "" for a session (interactive or -p), "sessions", "help", "version"
	oneShot bool
	prompt  string
	dir     string
	format  print.Format
	flags   config.Flags
	cont    bool      // --continue
	resume  string    // --resume ID
	mode    mode.Mode // --mode; nil when not given
	env     env       // the environment, set by run
}

// subcommands are the words that start a subcommand rather than a session.
var subcommands = []string{"sessions", "help"}

func parseArgs(args []string) (command, error) {
	var cmd command
	var format, modeName string
	var help, version bool
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
	fs.BoolVarP(&help, "help", "h", false, "")
	fs.BoolVar(&version, "version", false, "")
	if err := fs.Parse(args); err != nil {
		return cmd, flagError(err)
	}
	if err := cmd.subcommand(fs); err != nil {
		return cmd, err
	}
	switch {
	case help:
		cmd.sub = "help"
		return cmd, nil
	case version:
		cmd.sub = "version"
		return cmd, nil
	}
	cmd.oneShot = fs.Changed("prompt")
	if cmd.sub != "" {
		if err := onlyFlags(fs, "dir"); err != nil {
			return cmd, fmt.Errorf("%s: %w", cmd.sub, err)
		}
	}
	switch {
	case cmd.cont && fs.Changed("resume"):
		return cmd, usagef("--continue and --resume cannot go together")
	case fs.Changed("resume") && strings.TrimSpace(cmd.resume) == "":
		return cmd, usagef("--resume needs a session id (lathe sessions lists them)")
	case fs.Changed("max-turns") && (cmd.flags.MaxTurns < 1 || cmd.flags.MaxTurns > config.MaxTurns):
		return cmd, usagef("--max-turns must be between 1 and %d", config.MaxTurns)
	case fs.Changed("output-format") && !cmd.oneShot:
		return cmd, usagef("--output-format needs -p")
	}
	if fs.Changed("mode") {
		m, err := mode.Parse(modeName)
		if err != nil {
			return cmd, usagef("--mode: %v", err)
		}
		cmd.mode = m
	}
	f, err := print.ParseFormat(format)
	if err != nil {
		return cmd, usageError{err.Error()}
	}
	cmd.format = f
	cmd.dir, err = workingDir(cmd.dir)
	return cmd, err
}

// subcommand reads the words after the flags: a subcommand, or nothing.
func (cmd *command) subcommand(fs *pflag.FlagSet) error {
	words := fs.Args()
	if len(words) == 0 {
		return nil
	}
	switch words[0] {
	case "sessions":
		cmd.sub = "sessions"
		if len(words) > 1 {
			return usagef("sessions: unexpected argument %q", words[1])
		}
		return nil
	case "help":
		cmd.sub = "help"
		return nil
	}
	return usagef("unexpected argument %q: the request goes with -p (quote it), and the subcommands are %s",
		words[0], strings.Join(subcommands, ", "))
}

// onlyFlags refuses the flags that were given but are not in allowed.
func onlyFlags(fs *pflag.FlagSet, allowed ...string) error {
	var bad []string
	fs.Visit(func(f *pflag.Flag) {
		for _, a := range allowed {
			if f.Name == a {
				return
			}
		}
		bad = append(bad, "--"+f.Name)
	})
	if len(bad) > 0 {
		return usagef("%s cannot go with it", strings.Join(bad, ", "))
	}
	return nil
}

// flagError rewords pflag's errors for people: `--max-turns abc` is "a
// bad value for --max-turns", not a strconv error.
func flagError(err error) error {
	if m := badValue.FindStringSubmatch(err.Error()); m != nil {
		return usagef("%s: %q is not a valid value", m[2], m[1])
	}
	return usageError{err.Error()}
}

var badValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag`)

func workingDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usagef("-C %s: %v", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", usagef("-C %s: no such directory", dir)
	}
	if !info.IsDir() {
		return "", usagef("-C %s: not a directory", dir)
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
		return "", usagef("the prompt is empty")
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
