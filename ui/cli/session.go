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
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"
	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/images"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/trajectory"
	"lathe/prompts/commands"
	"lathe/prompts/human"
	"lathe/tools/mcp"
	"lathe/ui"
	"lathe/ui/print"
)

// sessionCommand is lathe without a subcommand: the interactive UI, or
// with -p a one-shot run.
type sessionCommand struct {
	f        *Factory
	prompt   string
	oneShot  bool // -p was given
	format   string
	resume   resumeFlags
	modeName string
	mode     mode.Mode // --mode; nil when not given
	images   []string  // --image PATH, in order
	trustMCP bool
	trustLSP bool
	// trajectory is where -p writes the run as an ATIF trajectory; "" for
	// nowhere.
	trajectory string
	demo       bool // --demo: the demo model, in a sample project
	trustHooks bool // --trust-project-hooks
}

func newSession(f *Factory) command { return &sessionCommand{f: f} }

func (c *sessionCommand) define(fs *pflag.FlagSet) {
	fs.StringVarP(&c.prompt, "prompt", "p", "", "")
	fs.StringVarP(&c.f.Flags.Model, "model", "m", "", "")
	c.f.dirFlag(fs)
	fs.BoolVar(&c.f.Flags.Yes, "yes", false, "")
	fs.IntVar(&c.f.Flags.MaxTurns, "max-turns", 0, "")
	fs.StringVar(&c.format, "output-format", string(print.FormatText), "")
	c.resume.define(fs)
	fs.StringVar(&c.modeName, "mode", "", "")
	fs.StringVar(&c.f.Flags.Sandbox, "sandbox", "", "")
	fs.StringVar(&c.f.Flags.Provider, "provider", "", "")
	fs.StringVar(&c.f.Flags.BaseURL, "base-url", "", "")
	fs.StringArrayVar(&c.images, "image", nil, "")
	fs.BoolVar(&c.trustMCP, "trust-project-mcp", false, "")
	fs.BoolVar(&c.trustLSP, "trust-project-lsp", false, "")
	fs.StringVar(&c.trajectory, "trajectory", "", "")
	fs.BoolVar(&c.demo, "demo", false, "")
	fs.BoolVar(&c.trustHooks, "trust-project-hooks", false, "")
}

func (c *sessionCommand) words(args []string) error { return noWords("", args) }

func (c *sessionCommand) check(fs *pflag.FlagSet) error {
	c.oneShot = fs.Changed("prompt")
	flags := c.f.Flags
	if err := c.resume.check(fs); err != nil {
		return err
	}
	switch {
	case fs.Changed("max-turns") && (flags.MaxTurns < 1 || flags.MaxTurns > config.MaxTurns):
		return usagef("--max-turns must be between 1 and %d", config.MaxTurns)
	case fs.Changed("output-format") && !c.oneShot:
		return usagef("--output-format needs -p")
	case fs.Changed("provider") && !slices.Contains([]string{config.ProviderOllama, config.ProviderOpenAI}, flags.Provider):
		return usagef("--provider: unknown provider %q: use ollama or openai", flags.Provider)
	case fs.Changed("base-url") && strings.TrimSpace(flags.BaseURL) == "":
		return usagef("--base-url needs a URL, such as http://127.0.0.1:8080/v1")
	case fs.Changed("image") && !c.oneShot:
		return usagef("--image needs -p (in the interactive UI, paste the image's path, or write @path)")
	case fs.Changed("trajectory") && !c.oneShot:
		return usagef("--trajectory needs -p")
	case fs.Changed("trajectory") && strings.TrimSpace(c.trajectory) == "":
		return usagef("--trajectory needs a file name, such as trajectory.json")
	case c.demo && (fs.Changed("model") || fs.Changed("provider") || fs.Changed("base-url")):
		return usagef("--demo runs its own model: leave out -m, --provider and --base-url")
	case c.demo && (c.resume.cont || fs.Changed("resume")):
		return usagef("--demo keeps no session to continue: leave out --continue and --resume")
	}
	m, err := checkSessionFlags(fs, flags.Sandbox, c.modeName)
	if err != nil {
		return err
	}
	c.mode = m
	if _, err := print.ParseFormat(c.format); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// checkTrajectoryDir checks, before the run, that --trajectory's file can
// be made where it is named.
func checkTrajectoryDir(path string) error {
	if path == "" {
		return nil
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return usagef("--trajectory %s: no such directory %s", path, filepath.Dir(path))
	}
	return nil
}

// checkSessionFlags checks --sandbox and --mode, which a session's
// commands share, and returns the mode --mode names (nil without it).
func checkSessionFlags(fs *pflag.FlagSet, sandbox, modeName string) (mode.Mode, error) {
	if err := checkSandbox(fs, sandbox); err != nil {
		return nil, err
	}
	if !fs.Changed("mode") {
		return nil, nil
	}
	m, err := mode.Parse(modeName)
	if err != nil {
		return nil, usagef("--mode: %v", err)
	}
	return m, nil
}

// checkSandbox checks --sandbox.
func checkSandbox(fs *pflag.FlagSet, mode string) error {
	if fs.Changed("sandbox") && !slices.Contains([]string{"workspace-write", "read-only", "off"}, mode) {
		return usagef("--sandbox: unknown mode %q: use workspace-write, read-only or off", mode)
	}
	return nil
}

func (c *sessionCommand) run(ctx context.Context) error {
	f := c.f
	if c.demo {
		if err := f.useDemo(); err != nil {
			return err
		}
	}
	var prompt string
	if c.oneShot {
		var err error
		if prompt, err = readPrompt(c.prompt, f.In); err != nil {
			return err
		}
	} else if !isTerminal(f.In) || !isTerminal(f.Out) {
		return usagef(`the interactive mode needs a terminal; for scripts use lathe -p "your request"`)
	} else {
		defer holdKeys(f.In)() // what is typed while a long session loads is the UI's (keys.go)
	}
	r, err := c.resume.session(ctx, f, !c.oneShot) // before the config: the session's directory may be another
	if err != nil {
		return err
	}
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	if c.oneShot {
		if err := checkTrajectoryDir(c.trajectory); err != nil {
			return err
		}
		imgs, err := readImages(c.images, loaded.Images)
		if err != nil {
			return err
		}
		p, err := c.customCommand(prompt, &loaded)
		if err != nil {
			return err
		}
		p.Images = imgs
		return c.runOnce(ctx, p, loaded, r)
	}
	return c.interactive(ctx, loaded, r)
}

// runOnce runs one prompt to completion with the printer for the chosen
// format.
func (c *sessionCommand) runOnce(ctx context.Context, prompt orchestrator.Prompt, loaded config.Loaded, r *resumption) error {
	f, cfg := c.f, loaded.Config
	color := !cfg.NoColor && isTerminal(f.ErrOut)
	log := zerolog.New(zerolog.ConsoleWriter{Out: f.ErrOut, NoColor: !color, TimeFormat: "15:04:05"}).
		Level(logLevel(cfg.LogLevel)).With().Timestamp().Logger()
	st := storeFor(ctx, f, r, true)
	defer st.close()
	e, err := engine.New(ctx, loaded, c.engineEnv(r, st, log))
	if err != nil {
		return workspaceUsage(err)
	}
	defer e.Close()
	if c.demo {
		useDemoModel(e, 0)
	}
	if r != nil && r.note != "" {
		fmt.Fprintln(f.ErrOut, "lathe: "+r.note)
	}
	for _, w := range append(loaded.Warnings, e.Warnings...) {
		f.warn(w)
	}
	stopTelemetry, warning := startTelemetry(ctx, cfg, e, f.ErrOut, log, f.warn)
	defer stopTelemetry()
	if warning != "" {
		f.warn(warning)
	}
	opts := e.Options
	opts.Approver = orchestrator.Rules{
		All: cfg.Approval.All, Tools: cfg.Approval.Tools, Commands: cfg.Approval.Commands,
		Denial: "lathe is running non-interactively without --yes, so it cannot change files or run commands; " +
			"say what you would do instead",
	}
	if f.Flags.Yes {
		// --yes carries a plan out and lets ask mode start a task; without
		// it the plan is printed, for the user to review, and ask mode
		// stays (approval rules in a config file are not enough).
		opts.Reviewer = mode.ApproveAll{}
	}
	s := orchestrator.New(opts)
	saved := r.saved()
	if saved != nil {
		_ = s.ResumeFrom(*saved) // a new session is idle
	}
	log.Debug().Str("session", s.Snapshot().ID).Bool("resumed", saved != nil).Msg("session")
	format, _ := print.ParseFormat(c.format)
	printer := print.New(format, f.Out, f.ErrOut,
		print.Options{Color: color, Terminal: isTerminal(f.Out), Progress: isTerminal(f.ErrOut)})
	if format == print.FormatStreamJSON {
		// The stream opens with the session and the model: asking the
		// server now costs nothing, the run would first; a failure is
		// the run's to report.
		if p, err := s.Prepare(ctx); err == nil {
			if err := printer.Start(s.Snapshot().ID, p.Model.Name); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
		}
	}
	consume := printer.Event
	var rec *trajectory.Recorder
	if c.trajectory != "" {
		model := f.Flags.Model
		if model == "" {
			model = cfg.Model
		}
		rec = trajectory.NewRecorder(trajectory.Options{Agent: "lathe", Version: buildVersion(), Model: model,
			Prompt: prompt.Text})
		consume = func(ev orchestrator.Event) { printer.Event(ev); rec.Event(ev) }
	}
	out := serialized(consume, f.ErrOut, e.Notices)
	emit := out.emit
	if e.MCP != nil {
		for _, note := range engine.UntrustedNotes(e.MCP.Servers(), true) {
			emit(orchestrator.Warning{Text: note})
		}
		waitMCP(ctx, e.MCP, out.say)
		x, err := e.MCP.Expand(ctx, prompt.Text)
		if err != nil {
			out.stop()
			if errors.Is(err, mcp.ErrBadReference) {
				return usageError{err.Error()}
			}
			return err
		}
		prompt.Text, prompt.Images = x.Text, append(prompt.Images, x.Images...)
	}
	if e.Hooks != nil {
		for _, note := range engine.UntrustedHooksNotes(e.Hooks, true) {
			emit(orchestrator.Warning{Text: note})
		}
	}
	if e.LSP != nil && e.LSPTrust != nil {
		if waiting := e.LSPTrust.Waiting(e.LSP); len(waiting) > 0 {
			emit(orchestrator.Warning{Text: "the language servers that wait for your trust were not started: " +
				strings.Join(waiting, "; ") + " (pass --trust-project-lsp to start them)"})
		}
	}
	res, runErr := s.RunPrompt(ctx, prompt, emit)
	s.End(context.WithoutCancel(ctx), "other", emit)
	out.stop()
	if inUse := (*session.InUseError)(nil); errors.As(runErr, &inUse) {
		flag := "--continue"
		if c.resume.id != "" {
			flag = "--resume"
		}
		runErr = fmt.Errorf("%w: wait for it to end, or leave out %s to start a new session", runErr, flag)
	}
	if err := printer.Finish(res, runErr); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if rec != nil {
		if err := trajectory.WriteFile(c.trajectory, rec.Finish(res, runErr)); err != nil {
			return err
		}
	}
	switch {
	case res.StopReason == orchestrator.StopDone || res.StopReason == orchestrator.StopPlanned:
		return nil
	case runErr != nil:
		return runErr
	}
	return &stopped{reason: res.StopReason, msg: res.Explain(cfg.Limits)}
}

// engineEnv is what the session's engine is wired in.
func (c *sessionCommand) engineEnv(r *resumption, st sessionStore, log zerolog.Logger) engine.Env {
	return engine.Env{
		Dir: c.f.Dir, Environ: c.f.Env.list, Getenv: c.f.Env.get,
		Store: st.store, StoreErr: st.err, Saved: r.saved(), ModelSet: c.f.Flags.Model != "",
		Mode: c.mode, Headless: c.oneShot, TrustProjectMCP: c.trustMCP, TrustProjectHooks: c.trustHooks,
		TrustProjectLSP: c.trustLSP, Version: buildVersion(), Log: log,
	}
}

// interactive runs the TUI, logging to a file: nothing may print behind
// its back. Warnings are shown in the TUI.
func (c *sessionCommand) interactive(ctx context.Context, loaded config.Loaded, r *resumption) error {
	f, cfg := c.f, loaded.Config
	// The UI's live heap is small and most of its garbage is the stream's
	// chunks: collecting at 5× growth, within 256 MiB, costs less CPU per
	// streamed token (README, "Measured"). GOGC or GOMEMLIMIT, when set,
	// decide instead.
	if f.Env.get("GOGC") == "" && f.Env.get("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(256 << 20)
	}
	logFile, err := openLog(config.StateDir(f.Env.get))
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	defer logFile.Close()
	log := zerolog.New(logFile).Level(logLevel(cfg.LogLevel)).With().Timestamp().Logger()
	st := storeFor(ctx, f, r, false)
	defer st.close()
	e, err := engine.New(ctx, loaded, c.engineEnv(r, st, log))
	if err != nil {
		return workspaceUsage(err)
	}
	defer e.Close()
	var intro string
	if c.demo {
		useDemoModel(e, demoPace)
		intro = demoIntro(f)
	}
	// What could not be sent is said once the UI has left the screen.
	stopTelemetry, warning := startTelemetry(ctx, cfg, e, logFile, log, f.warn)
	defer stopTelemetry()
	var notes []string
	if r != nil && r.note != "" {
		notes = append(notes, r.note)
	}
	cmds, cmdWarnings := engine.Commands(e.Options.Dir, f.Env.get, ui.CommandNames())
	dir := e.Options.Dir
	if warning != "" {
		notes = append(notes, warning)
	}
	opts := ui.Options{
		Engine: e.Options, Puller: e.Backend.Puller, Suggested: e.Backend.Suggested, Server: e.Backend.URL,
		Resume: r.saved(), Dir: e.Options.Dir, Home: f.Env.get("HOME"), NoColor: cfg.NoColor, Input: f.In, Output: f.Out,
		Environ: f.Env.list, FPS: cfg.TUI.FPS, Warnings: slices.Concat(notes, loaded.Warnings, e.Warnings, cmdWarnings),
		MCP: e.MCP, MCPNotices: e.Notices, TrustProject: engine.KeepTrust(e.MCP, e.Options.Dir, f.Env.get),
		Intro: intro, Ephemeral: c.demo,
		Hooks: e.Hooks, TrustHooks: engine.KeepHooksTrust(loaded, e.Options.Dir, f.Env.get),
		Skills: e.Skills, Commands: cmds, CommandPrompt: func(c commands.Command, args string) orchestrator.Prompt {
			return engine.CommandPrompt(c, args, dir)
		},
	}
	if e.LSP != nil && e.LSPTrust != nil {
		m, t := e.LSP, e.LSPTrust
		opts.LSPUntrusted = func() []string { return t.Waiting(m) }
		opts.TrustLSP = func() error { return t.TrustWaiting(m) }
	}
	if st.db != nil {
		opts.Catalog, opts.Memory = st.db, st.db
	}
	if r != nil {
		opts.ResumeLoader = r.db // r holds the session's header only
	}
	if e.Indexer != nil {
		opts.Indexer = e.Indexer
	}
	return ui.Run(ctx, opts)
}

// sessionStore is the store a session records in, and what closes it.
type sessionStore struct {
	store engine.Store
	db    *sqlite.DB // the store when it is open: the UI lists its sessions
	err   error      // why there is none
	lazy  *sqlite.Lazy
}

// storeFor is the store of a session: the resumed session's (r), or for
// a new headless one a database opened when it is first written to, so
// that a run that never reaches the model leaves nothing behind, or for
// the UI the database, opened now.
func storeFor(ctx context.Context, f *Factory, r *resumption, headless bool) sessionStore {
	if r != nil {
		return sessionStore{store: r.db, db: r.db}
	}
	path, err := f.StorePath()
	switch {
	case err != nil:
		return sessionStore{err: err}
	case headless:
		lazy := sqlite.NewLazy(path, storeOptions())
		return sessionStore{store: lazy, lazy: lazy}
	}
	db, err := f.Store(ctx)
	if err != nil {
		return sessionStore{err: err}
	}
	return sessionStore{store: db, db: db}
}

// close closes the lazily opened store; the factory closes the others.
func (s sessionStore) close() {
	if s.lazy != nil {
		s.lazy.Close()
	}
}

// workspaceUsage makes a working directory no session can work in a
// usage error.
func workspaceUsage(err error) error {
	if ws := (*engine.WorkspaceError)(nil); errors.As(err, &ws) {
		return usageError{ws.Error()}
	}
	return err
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

// isTerminal reports whether v (stdin, stdout or stderr) is a terminal
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

// output is what a one-shot run prints while it runs: its events, and
// lines of its own on stderr, behind one lock, through which the MCP
// servers' notices are printed too, a failure as a warning.
type output struct {
	mu     sync.Mutex
	fn     func(orchestrator.Event)
	stderr io.Writer
	done   chan struct{}
	wg     sync.WaitGroup
}

// serialized returns fn behind a lock, with the MCP servers' notices
// printed through it while the run goes on; stop ends that, printing the
// notices still queued.
func serialized(fn func(orchestrator.Event), stderr io.Writer, notices <-chan mcp.Notice) *output {
	o := &output{fn: fn, stderr: stderr, done: make(chan struct{})}
	if notices == nil {
		close(o.done)
		return o
	}
	o.wg.Go(func() {
		for {
			select {
			case n := <-notices:
				o.notice(n)
			case <-o.done:
				for {
					select {
					case n := <-notices:
						o.notice(n)
					default:
						return
					}
				}
			}
		}
	})
	return o
}

// notice prints a server's notice: a failure as a warning.
func (o *output) notice(n mcp.Notice) {
	if n.Failed {
		o.emit(orchestrator.Warning{Text: n.Text})
		return
	}
	o.say(n.Text)
}

func (o *output) emit(ev orchestrator.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.fn(ev)
}

// say prints a line of lathe's own on stderr.
func (o *output) say(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintln(o.stderr, "lathe: "+line)
}

// stop ends the notices' printing, once those queued are printed.
func (o *output) stop() {
	select {
	case <-o.done:
	default:
		close(o.done)
	}
	o.wg.Wait()
}

// waitMCP waits, within ctx, for the MCP servers still starting, saying
// so: a one-shot run's tools are those ready by its first request, each
// server given its start timeout at most.
func waitMCP(ctx context.Context, m *mcp.Manager, say func(string)) {
	names, left := m.Starting()
	if len(names) == 0 {
		return
	}
	what := "server"
	if len(names) > 1 {
		what = "servers"
	}
	say(fmt.Sprintf("waiting for the MCP %s %s to start (%s at most)", what, strings.Join(names, ", "), human.Duration(left)))
	m.WaitStarted(ctx)
}

// buildVersion is lathe's module version, told to MCP servers.
func buildVersion() string { return moduleVersion(debug.ReadBuildInfo()) }
