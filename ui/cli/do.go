package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"

	"github.com/charmbracelet/x/term"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/images"
	"lathe/orchestrator/session"
	"lathe/ui"
	"lathe/ui/print"
)

// do runs the command.
func (cmd command) do(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	switch cmd.sub {
	case "help":
		_, err := io.WriteString(stdout, usage)
		return err
	case "version":
		_, err := fmt.Fprintln(stdout, versionLine(debug.ReadBuildInfo()))
		return err
	case "sessions", "sessions rm", "sessions prune":
		return cmd.sessions(ctx, stdout, stderr)
	case "sessions search":
		return cmd.searchSessions(ctx, stdout, stderr)
	case "memory list", "memory rm":
		return cmd.memory(ctx, stdout, stderr)
	case "index":
		return cmd.index(ctx, stdout, stderr)
	case "doctor":
		return cmd.doctor(ctx, stdout)
	case "undo":
		return cmd.undo(ctx, stdin, stdout, stderr)
	case "context":
		return cmd.contextUse(ctx, stdout, stderr)
	case "eval", "eval show", "eval compare", "eval resume":
		return cmd.eval(ctx, stdout, stderr)
	case "mcp list":
		return cmd.mcpList(ctx, stdout, stderr)
	}
	var prompt string
	if cmd.oneShot {
		var err error
		if prompt, err = readPrompt(cmd.prompt, stdin); err != nil {
			return err
		}
	} else if !isTerminal(stdin) || !isTerminal(stdout) {
		return usagef(`the interactive mode needs a terminal; for scripts use lathe -p "your request"`)
	}
	r, err := cmd.resumeSession(ctx) // before the config: the session's directory may be another
	if err != nil {
		return err
	}
	if r != nil {
		defer r.db.Close()
	}
	loaded, err := config.Load(config.Sources{Getenv: cmd.env.get, ProjectDir: cmd.dir, Flags: cmd.flags})
	if err != nil {
		return err
	}
	if cmd.oneShot {
		imgs, err := readImages(cmd.images, loaded.Images)
		if err != nil {
			return err
		}
		return cmd.oneShotRun(ctx, orchestrator.Prompt{Text: prompt, Images: imgs}, loaded, r, stdout, stderr)
	}
	return cmd.interactive(ctx, loaded, r, stdin, stdout)
}

// oneShotRun runs one prompt to completion with the printer for the chosen
// format.
func (cmd command) oneShotRun(ctx context.Context, prompt orchestrator.Prompt, loaded config.Loaded, r *resumption,
	stdout, stderr io.Writer) error {
	cfg := loaded.Config
	color := !cfg.NoColor && isTerminal(stderr)
	log := zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: !color, TimeFormat: "15:04:05"}).
		Level(logLevel(cfg.LogLevel)).With().Timestamp().Logger()
	e, err := cmd.wire(ctx, loaded, r, log)
	if err != nil {
		return err
	}
	defer e.close()
	if r != nil && r.note != "" {
		fmt.Fprintln(stderr, "lathe: "+r.note)
	}
	for _, w := range append(loaded.Warnings, e.warnings...) {
		warn(stderr, w)
	}
	e.opts.Approver = orchestrator.Rules{
		All: cfg.Approval.All, Tools: cfg.Approval.Tools, Commands: cfg.Approval.Commands,
		Denial: "lathe is running non-interactively without --yes, so it cannot change files or run commands; " +
			"say what you would do instead",
	}
	if cmd.flags.Yes {
		// --yes carries a plan out and lets ask mode start a task; without
		// it the plan is printed, for the user to review, and ask mode
		// stays (approval rules in a config file are not enough).
		e.opts.Reviewer = mode.ApproveAll{}
	}
	s := orchestrator.New(e.opts)
	if e.saved != nil {
		_ = s.ResumeFrom(*e.saved) // a new session is idle
	}
	log.Debug().Str("session", s.Snapshot().ID).Bool("resumed", e.saved != nil).Msg("session")
	printer := print.New(cmd.format, stdout, stderr,
		print.Options{Color: color, Terminal: isTerminal(stdout), Progress: isTerminal(stderr)})
	emit, stopNotices := e.serialized(printer.Event)
	if e.mcp != nil {
		if names := e.mcp.Untrusted(); len(names) > 0 {
			emit(orchestrator.Warning{Text: untrustedNote(names, true)})
		}
	}
	res, runErr := s.RunPrompt(ctx, prompt, emit)
	stopNotices()
	if inUse := (*session.InUseError)(nil); errors.As(runErr, &inUse) {
		flag := "--continue"
		if cmd.resume != "" {
			flag = "--resume"
		}
		runErr = fmt.Errorf("%w: wait for it to end, or leave out %s to start a new session", runErr, flag)
	}
	if err := printer.Finish(res, runErr); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	switch {
	case res.StopReason == orchestrator.StopDone || res.StopReason == orchestrator.StopPlanned:
		return nil
	case runErr != nil:
		return runErr
	}
	return &stopped{reason: res.StopReason, msg: res.Explain(cfg.Limits)}
}

// readImages reads the images of --image, in order; a file that is not an
// image lathe can attach, or too large, is a usage error naming it.
func readImages(paths []string, lim config.Images) ([]provider.Image, error) {
	var out []provider.Image
	for _, p := range paths {
		img, err := images.Read(p, images.Limits{MaxEdge: lim.MaxEdge, MaxBytes: lim.MaxBytes})
		if err != nil {
			return nil, usagef("--image %v", err)
		}
		out = append(out, img)
	}
	return out, nil
}

// interactive runs the TUI, logging to a file: nothing may print behind
// its back. Warnings are shown in the TUI.
func (cmd command) interactive(ctx context.Context, loaded config.Loaded, r *resumption, stdin io.Reader, stdout io.Writer) error {
	cfg := loaded.Config
	// The UI's live heap is small and most of its garbage is the stream's
	// chunks: collecting at 5× growth, within 256 MiB, costs less CPU per
	// streamed token (README, "Measured"). GOGC or GOMEMLIMIT, when set,
	// decide instead.
	if cmd.env.get("GOGC") == "" && cmd.env.get("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(256 << 20)
	}
	logFile, err := openLog(config.StateDir(cmd.env.get))
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	defer logFile.Close()
	log := zerolog.New(logFile).Level(logLevel(cfg.LogLevel)).With().Timestamp().Logger()
	e, err := cmd.wire(ctx, loaded, r, log)
	if err != nil {
		return err
	}
	defer e.close()
	var notes []string
	if r != nil && r.note != "" {
		notes = append(notes, r.note)
	}
	opts := ui.Options{
		Engine: e.opts, Puller: e.backend.puller, Suggested: e.backend.suggested, Server: e.backend.url, Resume: e.saved,
		Dir: e.opts.Dir, Home: cmd.env.get("HOME"), NoColor: cfg.NoColor, Input: stdin, Output: stdout,
		Environ: cmd.env.list, FPS: cfg.TUI.FPS, Warnings: slices.Concat(notes, loaded.Warnings, e.warnings),
		MCP: e.mcp, MCPNotices: e.notices, TrustProject: cmd.keepTrust(loaded, e.opts.Dir),
	}
	if e.db != nil {
		opts.Catalog, opts.Memory = e.db, e.db
	}
	if e.indexer != nil {
		opts.Indexer = e.indexer
	}
	return ui.Run(ctx, opts)
}

// isTerminal reports whether v (stdin, stdout or stderr) is a terminal
// logLevel is the logger's level for the config's.
func logLevel(l config.LogLevel) zerolog.Level {
	switch l {
	case config.LogDebug:
		return zerolog.DebugLevel
	case config.LogInfo:
		return zerolog.InfoLevel
	case config.LogError:
		return zerolog.ErrorLevel
	}
	return zerolog.WarnLevel
}

// (not merely a character device, as /dev/null is).
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(f.Fd())
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
