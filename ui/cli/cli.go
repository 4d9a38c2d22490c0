package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator/mode"
	"lathe/ui/print"
)

const usage = `lathe: a coding assistant for models you run yourself

Usage:
  lathe [flags]                    the interactive UI in the working directory
  lathe -p TEXT [flags]            one-shot: run the request, print the answer
  lathe sessions [--json] [--all]  list the saved sessions of the directory
  lathe sessions rm ID...          remove sessions (a unique id prefix will do)
  lathe sessions prune --older-than AGE [--all] [--dry-run]
                                   remove the sessions not updated for AGE
  lathe sessions search WORDS... [--json] [--all]
                                   find the saved messages holding WORDS
  lathe memory list [--json] [--all]
                                   the facts remembered about the directory
  lathe memory rm ID...            forget facts
  lathe index                      build or bring up to date the directory's
                                   semantic code index (needs an embedding
                                   model: ollama pull embeddinggemma)
  lathe undo [--continue | --session ID] [--list] [--yes] [--force]
                                   take back the file changes of a session's
                                   last request (default: the latest session)
  lathe doctor [--json]            check the server, models, sandbox and setup
  lathe context [--continue | --resume ID]
                                   how the context window is used
  lathe eval SUITE | --builtin -m M1,M2 [--repeat N] [--jobs N]
                                   run a suite of tasks against models
  lathe eval show [ID] [--json | --csv]
                                   an experiment's results (the latest)
  lathe eval compare A B           what changed from experiment A to B
  lathe eval resume [ID]           run what an experiment left unrun
  lathe mcp list [--json]          the MCP servers and their tools
  lathe help, lathe --help         show this help
  lathe --version                  print the version

Flags:
  -p, --prompt TEXT        the request; "-" reads it from stdin, and piped
                           stdin is appended to it
  -m, --model NAME         model (default: config, else an installed local
                           model with tool support)
  -C, --dir DIR            working directory (default: the current one)
      --yes                approve every tool call without asking
      --max-turns N        model calls per request (default 10)
      --output-format FMT  text (default), json or stream-json (with -p)
      --continue           continue the latest session of the directory
      --resume ID          continue session ID (a unique prefix will do),
                           in the directory it was saved in
      --mode MODE          start in build (default), plan or ask mode; with
                           -p, plan mode prints the plan and stops, unless
                           --yes carries it out
      --sandbox MODE       how commands are confined: workspace-write
                           (default), read-only or off
      --provider NAME      ollama (default) or openai: an OpenAI-compatible
                           server (llama.cpp, LM Studio, vLLM, SGLang)
      --base-url URL       the server: for openai its API root, such as
                           http://127.0.0.1:8080/v1; for ollama, over
                           OLLAMA_HOST
      --image PATH         attach an image for a vision model (PNG, JPEG,
                           WebP, GIF); repeat it for more (with -p)
      --trust-project-mcp  start the MCP servers the project declares
                           (.lathe/config.toml, .mcp.json) for this run
  -h, --help               show this help
      --version            print the version

Flags of lathe sessions and lathe memory:
      --json               a JSON array instead of a table
      --all                every directory, not only the working one
      --older-than AGE     prune: not updated for AGE (30d, 12h, 90m)
      --dry-run            prune: list what would be removed, remove nothing

Flags of lathe eval:
      --builtin            the built-in suite of twelve tasks
      --repeat N           attempts per task and model (default 1)
      --jobs N             attempts run at once (default 1)
      --csv                show: every attempt as CSV (--json: as JSON)

Flags of lathe undo, lathe doctor and lathe mcp list:
      --session ID         undo: that session (a unique prefix will do)
      --list               undo: list the runs that can be undone
      --yes                undo: do not ask first
      --force              undo: overwrite files changed since the run
      --json               doctor, mcp list: JSON

Exit codes of -p: 0 done (or a plan printed), 1 failure, 2 usage or config
error, 3 stopped by a limit, 130 interrupted. The interactive UI exits 0,
or 1 or 2 when it cannot start.

Environment:
  OLLAMA_HOST      the Ollama server (default 127.0.0.1:11434)
  api_key_env      (a config key) names the variable holding the API key
                   of an OpenAI-compatible server
  LATHE_MODEL      the model, over the config files
  LOG_LEVEL        debug, info, warn (default) or error
  NO_COLOR         no colour
  XDG_CONFIG_HOME  where your config is (default ~/.config)
  XDG_DATA_HOME    where sessions are kept (default ~/.local/share)
  XDG_STATE_HOME   where the interactive UI logs (default ~/.local/state)

Files:
  $XDG_CONFIG_HOME/lathe/config.toml  your config
  .lathe/config.toml                  the project's config, over yours; it
                                      may tighten limits, never approve
  .mcp.json                           the project's MCP servers (Claude
                                      Code's file), started once trusted
  AGENTS.md                           the project's instructions to the model
  $XDG_DATA_HOME/lathe/lathe.db       the saved sessions, facts and code indexes
  $XDG_STATE_HOME/lathe/lathe.log     the interactive UI's log
`

// command is a parsed command line.
type command struct {
	// sub is "" for a session (interactive or -p), or "sessions",
	// "sessions rm", "sessions prune", "help", "version".
	sub     string
	oneShot bool
	prompt  string
	dir     string
	dirSet  bool // -C was given
	format  print.Format
	flags   config.Flags
	cont    bool      // --continue
	resume  string    // --resume ID
	mode    mode.Mode // --mode; nil when not given
	images  []string  // --image PATH, in order
	env     env       // the environment, set by run

	// Of lathe sessions and its subcommands.
	ids       []string      // sessions rm, memory rm: the ids (or prefixes) to remove
	query     string        // sessions search: the words
	olderThan time.Duration // sessions prune --older-than
	all       bool          // --all: every directory
	dryRun    bool          // sessions prune --dry-run
	json      bool          // sessions --json, doctor --json

	// Of lathe undo.
	session string // --session ID
	list    bool   // --list
	force   bool   // --force

	// trustMCP: --trust-project-mcp.
	trustMCP bool

	// Of lathe eval.
	evalArgs []string // the suite, or the experiments' ids
	builtin  bool     // --builtin
	repeat   int      // --repeat
	jobs     int      // --jobs
	csv      bool     // --csv
}

// subcommands are the words that start a subcommand rather than a session.
var subcommands = []string{"sessions", "memory", "index", "undo", "doctor", "context", "eval", "mcp", "help"}

// flagsOf are the flags each subcommand takes; a session takes every
// flag but those of the subcommands (sessionOnly).
var flagsOf = map[string][]string{
	"sessions":        {"dir", "json", "all"},
	"sessions rm":     {"dir"},
	"sessions prune":  {"dir", "older-than", "all", "dry-run"},
	"sessions search": {"dir", "json", "all"},
	"memory list":     {"dir", "json", "all"},
	"memory rm":       {"dir"},
	"index":           {"dir"},
	"undo":            {"dir", "continue", "session", "list", "yes", "force"},
	"doctor":          {"dir", "json", "model", "provider", "base-url"},
	"context":         {"dir", "continue", "resume", "model", "provider", "base-url"},
	"eval":            {"dir", "model", "builtin", "repeat", "jobs", "sandbox"},
	"eval show":       {"dir", "json", "csv"},
	"eval compare":    {"dir"},
	"eval resume":     {"dir"},
	"mcp list":        {"dir", "json", "trust-project-mcp"},
	"help":            {},
}

// sessionOnly are the flags of the subcommands, which a session refuses.
var sessionOnly = append([]string{"json", "all", "older-than", "dry-run", "session", "list", "force"}, evalOnly...)

// evalOnly are the flags of lathe eval alone.
var evalOnly = []string{"builtin", "repeat", "jobs", "csv"}

func parseArgs(args []string) (command, error) {
	var cmd command
	var format, modeName, olderThan string
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
	fs.BoolVar(&cmd.json, "json", false, "")
	fs.BoolVar(&cmd.all, "all", false, "")
	fs.StringVar(&olderThan, "older-than", "", "")
	fs.BoolVar(&cmd.dryRun, "dry-run", false, "")
	fs.StringVar(&cmd.flags.Sandbox, "sandbox", "", "")
	fs.StringVar(&cmd.flags.Provider, "provider", "", "")
	fs.StringVar(&cmd.flags.BaseURL, "base-url", "", "")
	fs.StringArrayVar(&cmd.images, "image", nil, "")
	fs.StringVar(&cmd.session, "session", "", "")
	fs.BoolVar(&cmd.list, "list", false, "")
	fs.BoolVar(&cmd.force, "force", false, "")
	fs.BoolVar(&cmd.builtin, "builtin", false, "")
	fs.IntVar(&cmd.repeat, "repeat", 1, "")
	fs.IntVar(&cmd.jobs, "jobs", 1, "")
	fs.BoolVar(&cmd.csv, "csv", false, "")
	fs.BoolVar(&cmd.trustMCP, "trust-project-mcp", false, "")
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
	cmd.dirSet = fs.Changed("dir")
	if cmd.sub != "" {
		if err := cmd.subFlags(fs, olderThan); err != nil {
			return cmd, err
		}
		var err error
		cmd.dir, err = workingDir(cmd.dir)
		return cmd, err
	}
	if err := notFlags(fs, sessionOnly...); err != nil {
		return cmd, err
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
	case fs.Changed("provider") && !slices.Contains([]string{config.ProviderOllama, config.ProviderOpenAI}, cmd.flags.Provider):
		return cmd, usagef("--provider: unknown provider %q: use ollama or openai", cmd.flags.Provider)
	case fs.Changed("base-url") && strings.TrimSpace(cmd.flags.BaseURL) == "":
		return cmd, usagef("--base-url needs a URL, such as http://127.0.0.1:8080/v1")
	case fs.Changed("image") && !cmd.oneShot:
		return cmd, usagef("--image needs -p (in the interactive UI, paste the image's path, or write @path)")
	case fs.Changed("sandbox") && !slices.Contains([]string{"workspace-write", "read-only", "off"}, cmd.flags.Sandbox):
		return cmd, usagef("--sandbox: unknown mode %q: use workspace-write, read-only or off", cmd.flags.Sandbox)
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

// subcommand reads the words after the flags: a subcommand and its
// arguments, or nothing.
func (cmd *command) subcommand(fs *pflag.FlagSet) error {
	words := fs.Args()
	if len(words) == 0 {
		return nil
	}
	switch words[0] {
	case "sessions":
		return cmd.sessionsCommand(words[1:])
	case "eval":
		return cmd.evalCommand(words[1:])
	case "memory":
		return cmd.memoryCommand(words[1:])
	case "help":
		cmd.sub = "help"
		return nil
	case "mcp":
		if len(words) < 2 || words[1] != "list" {
			return usagef("mcp: say what to do: lathe mcp list [--json]")
		}
		cmd.sub = "mcp list"
		if len(words) > 2 {
			return usagef("mcp list: unexpected argument %q", words[2])
		}
		return nil
	case "undo", "doctor", "context", "index":
		cmd.sub = words[0]
		if len(words) > 1 {
			return usagef("%s: unexpected argument %q", words[0], words[1])
		}
		return nil
	}
	return usagef("unexpected argument %q: the request goes with -p (quote it), and the subcommands are %s",
		words[0], strings.Join(subcommands, ", "))
}

// sessionsCommand reads the words after "sessions".
func (cmd *command) sessionsCommand(words []string) error {
	cmd.sub = "sessions"
	if len(words) == 0 {
		return nil
	}
	switch words[0] {
	case "rm":
		cmd.sub, cmd.ids = "sessions rm", words[1:]
		if len(cmd.ids) == 0 {
			return usagef("sessions rm: give the id of the session to remove (lathe sessions lists them)")
		}
		return nil
	case "prune":
		cmd.sub = "sessions prune"
		if len(words) > 1 {
			return usagef("sessions prune: unexpected argument %q (the age goes with --older-than)", words[1])
		}
		return nil
	case "search":
		cmd.sub, cmd.query = "sessions search", strings.TrimSpace(strings.Join(words[1:], " "))
		if cmd.query == "" {
			return usagef("sessions search: give the words to look for")
		}
		return nil
	}
	return usagef("sessions: unexpected argument %q (the subcommands of sessions are rm, prune and search)", words[0])
}

// memoryCommand reads the words after "memory".
func (cmd *command) memoryCommand(words []string) error {
	if len(words) == 0 {
		return usagef("memory: say list or rm")
	}
	switch words[0] {
	case "list":
		cmd.sub = "memory list"
		if len(words) > 1 {
			return usagef("memory list: unexpected argument %q", words[1])
		}
		return nil
	case "rm":
		cmd.sub, cmd.ids = "memory rm", words[1:]
		if len(cmd.ids) == 0 {
			return usagef("memory rm: give the id of the fact to forget (lathe memory list shows them)")
		}
		return nil
	}
	return usagef("memory: unexpected argument %q (the subcommands of memory are list and rm)", words[0])
}

// subFlags checks the flags given to a subcommand, and reads the age of
// sessions prune.
func (cmd *command) subFlags(fs *pflag.FlagSet, olderThan string) error {
	if err := onlyFlags(fs, flagsOf[cmd.sub]...); err != nil {
		return fmt.Errorf("%s: %w", cmd.sub, err)
	}
	if cmd.sub == "undo" && cmd.cont && cmd.session != "" {
		return usagef("undo: --continue and --session cannot go together")
	}
	if strings.HasPrefix(cmd.sub, "eval") {
		return cmd.evalFlags(fs)
	}
	if cmd.sub != "sessions prune" {
		return nil
	}
	if !fs.Changed("older-than") {
		return usagef("sessions prune: say which sessions with --older-than, for example --older-than 30d")
	}
	age, err := parseAge(olderThan)
	if err != nil {
		return usagef("--older-than: %q is not an age: use days, hours or minutes, such as 30d, 12h or 90m", olderThan)
	}
	cmd.olderThan = age
	return nil
}

// parseAge reads a Go duration ("36h", "90m"), which may start with a
// number of days: "30d", "1d12h".
func parseAge(s string) (time.Duration, error) {
	var days time.Duration
	if n, rest, ok := strings.Cut(s, "d"); ok {
		d, err := strconv.ParseUint(n, 10, 16)
		if err != nil {
			return 0, err
		}
		days, s = time.Duration(d)*24*time.Hour, rest
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("not an age: %q", s)
	}
	return days + d, nil
}

// onlyFlags refuses the flags that were given but are not in allowed.
func onlyFlags(fs *pflag.FlagSet, allowed ...string) error {
	var bad []string
	fs.Visit(func(f *pflag.Flag) {
		if !slices.Contains(allowed, f.Name) {
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) > 0 {
		return usagef("%s cannot go with it", strings.Join(bad, ", "))
	}
	return nil
}

// notFlags refuses, for a session, the flags of lathe sessions that were
// given.
func notFlags(fs *pflag.FlagSet, refused ...string) error {
	var bad []string
	fs.Visit(func(f *pflag.Flag) {
		if slices.Contains(refused, f.Name) {
			bad = append(bad, "--"+f.Name)
		}
	})
	switch {
	case len(bad) == 0:
		return nil
	case fs.Changed("json"):
		return usagef("%s: only lathe sessions takes it (with -p, use --output-format json)", strings.Join(bad, ", "))
	}
	if slices.ContainsFunc(bad, func(f string) bool { return slices.Contains(evalOnly, f[2:]) }) {
		return usagef("%s: only lathe eval takes it", strings.Join(bad, ", "))
	}
	return usagef("%s: only lathe sessions takes it", strings.Join(bad, ", "))
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
