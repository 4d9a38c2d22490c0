package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/ui/acp"
)

// acpCommand is lathe acp: lathe as an Agent Client Protocol agent, for
// an editor that starts it and speaks JSON-RPC on its stdin and stdout.
// Each session the editor opens works in the directory it names, with
// that directory's config; the flags apply to every session.
type acpCommand struct {
	f        *Factory
	modeName string
	mode     mode.Mode
}

func newACP(f *Factory) command { return &acpCommand{f: f} }

func (c *acpCommand) define(fs *pflag.FlagSet) {
	fs.StringVarP(&c.f.Flags.Model, "model", "m", "", "")
	c.f.dirFlag(fs)
	fs.BoolVar(&c.f.Flags.Yes, "yes", false, "")
	fs.StringVar(&c.modeName, "mode", "", "")
	fs.StringVar(&c.f.Flags.Sandbox, "sandbox", "", "")
	fs.StringVar(&c.f.Flags.Provider, "provider", "", "")
	fs.StringVar(&c.f.Flags.BaseURL, "base-url", "", "")
}

func (c *acpCommand) words(args []string) error { return noWords("acp", args) }

func (c *acpCommand) check(fs *pflag.FlagSet) error {
	flags := c.f.Flags
	switch {
	case fs.Changed("provider") && flags.Provider != config.ProviderOllama && flags.Provider != config.ProviderOpenAI:
		return usagef("--provider: unknown provider %q: use ollama or openai", flags.Provider)
	case fs.Changed("base-url") && flags.BaseURL == "":
		return usagef("--base-url needs a URL, such as http://127.0.0.1:8080/v1")
	}
	m, err := checkSessionFlags(fs, flags.Sandbox, c.modeName)
	c.mode = m
	return err
}

// run serves the editor until it closes stdin. Nothing but the protocol
// goes to stdout: the log goes to lathe's log file, and a failure to
// start to stderr.
func (c *acpCommand) run(ctx context.Context) error {
	f := c.f
	base, err := f.Config() // the working directory's: what initialize tells
	if err != nil {
		return err
	}
	logFile, err := openLog(config.StateDir(f.Env.get))
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	defer logFile.Close()
	log := zerolog.New(logFile).Level(logLevel(base.LogLevel)).With().Timestamp().Str("acp", "").Logger()
	db, storeErr := f.Store(ctx)
	if storeErr != nil {
		log.Warn().Err(storeErr).Msg("sessions are not saved")
	}
	o := acp.Options{In: f.In, Out: f.Out, Log: log, LogOut: logFile, Version: buildVersion(), Mode: c.mode,
		Yes: f.Flags.Yes, Sees: func(ctx context.Context) bool { return sees(ctx, base.Config) }}
	o.Open = func(ctx context.Context, w acp.Wiring) (*acp.Wired, error) {
		return c.open(ctx, w, db, storeErr, log)
	}
	if db != nil {
		o.Load = func(ctx context.Context, id string) (*session.Saved, error) {
			saved, err := db.LoadResume(ctx, id)
			if err != nil {
				return nil, err
			}
			return &saved, nil
		}
	}
	return acp.Serve(ctx, o)
}

// open wires a session in w.Dir: that directory's config, the editor's
// MCP servers joined to it as the user's own, the engine, telemetry.
func (c *acpCommand) open(ctx context.Context, w acp.Wiring, db *sqlite.DB, storeErr error, log zerolog.Logger) (*acp.Wired, error) {
	f := c.f
	loaded, err := config.Load(config.Sources{Getenv: f.Env.get, ProjectDir: w.Dir, Flags: f.Flags})
	if err != nil {
		return nil, err
	}
	if len(w.MCP) > 0 {
		servers := maps.Clone(loaded.MCP.Servers)
		if servers == nil {
			servers = map[string]config.MCPServer{}
		}
		maps.Copy(servers, w.MCP)
		loaded.MCP.Servers = servers
	}
	env := engine.Env{Dir: w.Dir, Environ: f.Env.list, Getenv: f.Env.get, StoreErr: storeErr, Saved: w.Saved,
		ModelSet: f.Flags.Model != "", Mode: c.mode, Headless: true, Version: buildVersion(), Log: log}
	if db != nil {
		env.Store = db
	}
	e, err := engine.New(ctx, loaded, env)
	if err != nil {
		if ws := (*engine.WorkspaceError)(nil); errors.As(err, &ws) {
			return nil, ws
		}
		return nil, err
	}
	for _, warning := range append(loaded.Warnings, e.Warnings...) {
		log.Warn().Str("dir", w.Dir).Msg(warning)
	}
	stopTelemetry, warning := startTelemetry(ctx, loaded.Config, e, f.ErrOut, log, func(s string) { log.Warn().Msg(s) })
	if warning != "" {
		log.Warn().Msg(warning)
	}
	cfg := loaded.Config
	return &acp.Wired{Engine: e, Limits: cfg.Limits,
		Rules: orchestrator.Rules{All: cfg.Approval.All, Tools: cfg.Approval.Tools, Commands: cfg.Approval.Commands},
		Close: func() { stopTelemetry(); e.Close() }}, nil
}

// sees reports whether the model cfg names (or the one lathe would
// choose) can see images; false when the server cannot say.
func sees(ctx context.Context, cfg config.Config) bool {
	be, err := engine.NewBackend(cfg)
	if err != nil {
		return false
	}
	info, err := be.Provider.Model(ctx, cfg.Model)
	return err == nil && info.Has("vision")
}
