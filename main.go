// Command lathe is a terminal coding assistant for models served by Ollama.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/prompts"
	"lathe/sandbox"
	"lathe/tools"
	"lathe/ui"
)

// Exit codes: a contract scripts depend on.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitLimit       = 3
	exitInterrupted = 130
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:])) // a sandboxed command's helper; see package sandbox
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl+C ends the process at once
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run is the whole program: parse the command line, load the config, and
// hand over to the one-shot run or the interactive TUI. It returns the
// exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	cmd, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "lathe: %v\nRun \"lathe --help\" for usage.\n", err)
		return exitUsage
	}
	switch {
	case cmd.help:
		fmt.Fprint(stdout, usage)
		return exitOK
	case cmd.version:
		fmt.Fprintln(stdout, "lathe", version())
		return exitOK
	case cmd.sessions:
		return listSessions(ctx, cmd, getenv, stdout, stderr)
	}
	var prompt string
	if cmd.oneShot {
		if prompt, err = readPrompt(cmd.prompt, stdin); err != nil {
			fmt.Fprintf(stderr, "lathe: %v\n", err)
			return exitUsage
		}
	} else if !isTerminal(stdin) || !isTerminal(stdout) {
		fmt.Fprintln(stderr, `lathe: the interactive mode needs a terminal; for scripts use lathe -p "your request"`)
		return exitUsage
	}
	loaded, err := config.Load(config.Sources{Getenv: getenv, ProjectDir: cmd.dir, Flags: cmd.flags})
	if err != nil {
		fmt.Fprintf(stderr, "lathe: config: %v\n", err)
		return exitUsage
	}
	for _, w := range loaded.Warnings {
		fmt.Fprintf(stderr, "lathe: warning: %s\n", w)
	}
	if cmd.oneShot {
		return oneShot(ctx, cmd, prompt, loaded.Config, stdout, stderr, getenv)
	}
	return interactive(ctx, cmd, loaded.Config, stdin, stdout, stderr, getenv)
}

// engine wires what both modes share: the workspace and its tools, the
// system prompt, the Ollama client, the session store, and the session to
// resume (nil for a new one). Failures are reported on stderr; code is then
// the exit code. Call done when finished.
func engine(ctx context.Context, cmd command, cfg config.Config, log zerolog.Logger, stderr io.Writer, getenv func(string) string) (
	opts orchestrator.Options, saved *orchestrator.SavedSession, done func(), code int) {
	ws, err := tools.OpenWorkspace(cmd.dir)
	if err != nil {
		fmt.Fprintf(stderr, "lathe: %v\n", err)
		return opts, nil, nil, exitUsage
	}
	registry := tools.Default(ws, tools.Options{
		MaxOutputBytes: cfg.Limits.ToolOutputBytes,
		ShellTimeout:   cfg.Limits.ShellTimeout.Duration,
	})
	closers := []func() error{ws.Close}
	done = func() {
		for _, c := range closers {
			_ = c()
		}
	}
	fail := func(c int, format string, args ...any) (orchestrator.Options, *orchestrator.SavedSession, func(), int) {
		done()
		fmt.Fprintf(stderr, "lathe: "+format+"\n", args...)
		return opts, nil, nil, c
	}
	if err := checkApprovalTools(cfg.Approval.Tools, registry); err != nil {
		return fail(exitUsage, "config: %v", err)
	}
	env := prompts.Env{
		Dir: ws.Dir(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		Git: inGitRepo(cmd.dir), Instructions: readInstructions(ws, stderr),
	}
	var st orchestrator.Store
	if db, err := openStore(getenv); err != nil && (cmd.cont || cmd.resume != "") {
		return fail(exitFailure, "sessions: %v", err)
	} else if err != nil {
		fmt.Fprintf(stderr, "lathe: warning: sessions are not saved: %v\n", err)
	} else {
		st = db
		closers = append(closers, db.Close)
	}
	if saved, err = savedSession(ctx, cmd, st); err != nil {
		return fail(exitUsage, "%v", err)
	}
	if saved != nil && cmd.flags.Model == "" && saved.Model != "" {
		cfg.Model = saved.Model // resume with the session's model unless -m says otherwise
	}
	return orchestrator.Options{
		Client:  api.NewClient(cfg.OllamaURL, &http.Client{}),
		Tools:   registry,
		Log:     log,
		Config:  cfg,
		Env:     env,
		Mode:    cmd.mode,
		BaseURL: cfg.OllamaURL.String(),
		Store:   st,
		Dir:     ws.Dir(),
	}, saved, done, exitOK
}

// oneShot runs one prompt to completion with the printer for the chosen
// format, and returns the exit code.
func oneShot(ctx context.Context, cmd command, prompt string, cfg config.Config, stdout, stderr io.Writer, getenv func(string) string) int {
	color := !cfg.NoColor && isTerminal(stderr)
	log := zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: !color, TimeFormat: "15:04:05"}).
		Level(cfg.LogLevel).With().Timestamp().Logger()
	opts, saved, done, code := engine(ctx, cmd, cfg, log, stderr, getenv)
	if code != exitOK {
		return code
	}
	defer done()
	opts.Approver = orchestrator.Rules{
		All: cfg.Approval.All, Tools: cfg.Approval.Tools, Commands: cfg.Approval.Commands,
		Denial: "lathe is running non-interactively without --yes, so it cannot change files or run commands; " +
			"say what you would do instead",
	}
	if cmd.flags.Yes {
		// --yes carries a plan out; without it the plan is printed, for the
		// user to review (approval.all in a config file is not enough).
		opts.Reviewer = orchestrator.ApprovePlans{}
	}
	session := orchestrator.New(opts)
	if saved != nil {
		session.ResumeFrom(*saved)
	}
	printer := ui.NewHeadless(cmd.format, stdout, stderr, color)
	res, runErr := session.Run(ctx, prompt, printer.Event)
	if err := printer.Finish(res, runErr); err != nil {
		fmt.Fprintf(stderr, "lathe: write output: %v\n", err)
		return exitFailure
	}
	return report(stderr, res, runErr, cfg.Limits)
}

// interactive runs the TUI, logging to a file: nothing may print behind
// its back.
func interactive(ctx context.Context, cmd command, cfg config.Config, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	logFile, err := openLog(config.StateDir(getenv))
	if err != nil {
		fmt.Fprintf(stderr, "lathe: log: %v\n", err)
		return exitFailure
	}
	defer logFile.Close()
	log := zerolog.New(logFile).Level(cfg.LogLevel).With().Timestamp().Logger()
	opts, saved, done, code := engine(ctx, cmd, cfg, log, stderr, getenv)
	if code != exitOK {
		return code
	}
	defer done()
	err = ui.RunTUI(ctx, ui.TUIOptions{
		Engine: opts, Puller: opts.Client.(orchestrator.Puller), Resume: saved,
		Dir: opts.Dir, Home: getenv("HOME"), NoColor: cfg.NoColor, Input: stdin, Output: stdout,
	})
	if err != nil {
		fmt.Fprintf(stderr, "lathe: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// report tells the user how a run that did not simply finish ended, and
// returns the exit code.
func report(stderr io.Writer, res orchestrator.Result, err error, lim config.Limits) int {
	switch res.StopReason {
	case orchestrator.StopDone, orchestrator.StopPlanned:
		return exitOK
	case orchestrator.StopMaxTurns:
		fmt.Fprintf(stderr, "lathe: stopped after %d turns, the limit (raise it with --max-turns)\n", res.Turns)
	case orchestrator.StopToolBudget:
		fmt.Fprintf(stderr, "lathe: stopped: the budget of %d tool calls was used up (limits.tool_calls_per_prompt)\n", lim.ToolCallsPerPrompt)
	case orchestrator.StopTimeout:
		fmt.Fprintf(stderr, "lathe: stopped: the time limit of %s was reached (limits.timeout)\n", lim.Timeout.Duration)
	case orchestrator.StopRepetition:
		fmt.Fprintf(stderr, "lathe: stopped: the model made the same call (%s) %d times with the same result (limits.repeat_stop)\n",
			res.Repeated, lim.RepeatStop)
	case orchestrator.StopEmpty:
		fmt.Fprintln(stderr, "lathe: stopped: the model gave an empty reply twice; try again, or another model")
		return exitFailure
	case orchestrator.StopInterrupted:
		fmt.Fprintln(stderr, "lathe: interrupted")
		return exitInterrupted
	default:
		if err == nil {
			err = errors.New("the run failed")
		}
		fmt.Fprintf(stderr, "lathe: %v\n", err)
		return exitFailure
	}
	return exitLimit
}
