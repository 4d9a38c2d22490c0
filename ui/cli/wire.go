package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/config/safefile"
	"lathe/orchestrator"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/provider/images"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/prompts"
	"lathe/tools"
	"lathe/tools/mcp"
	"lathe/tools/sandbox"
)

// engine is what a session runs with, wired from the config.
type engine struct {
	opts     orchestrator.Options
	mcp      *mcp.Manager    // the MCP servers; nil when none is configured
	notices  chan mcp.Notice // what the servers did in the background
	backend  backend         // the model server
	indexer  *indexer        // brings the code index up to date; nil when there is none
	db       *sqlite.DB      // the store, when opened at once (to resume, or for the UI); nil otherwise
	saved    *session.Saved  // the session to resume; nil for a new one
	warnings []string
	closers  []func() error
}

// close releases what wire opened, the last opened first: the
// checkpoints are pruned while the store is still open.
func (e *engine) close() {
	for _, c := range slices.Backward(e.closers) {
		_ = c()
	}
}

// pruner keeps the checkpoints within a bound (sqlite.DB.PruneCheckpoints).
type pruner interface {
	PruneCheckpoints(ctx context.Context, limit int64) (int, error)
}

var (
	_ pruner = (*sqlite.DB)(nil)
	_ pruner = (*lazyStore)(nil)
)

// wire opens the workspace and its tools, reads the project's
// instructions, sets up the session store (the one the session to resume,
// r, is in; nil for a new session) and builds the model backend:
// everything a session needs.
func (cmd command) wire(ctx context.Context, loaded config.Loaded, r *resumption, log zerolog.Logger) (*engine, error) {
	cfg := loaded.Config
	ws, err := tools.OpenWorkspace(cmd.dir)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	be, err := newBackend(cfg)
	if err != nil {
		ws.Close()
		return nil, err
	}
	e := &engine{closers: []func() error{ws.Close}, backend: be}
	conf, warning := cmd.confinement(cfg, ws.Dir())
	e.warn(warning)
	instructions, w := readInstructions(ws.Dir())
	e.warn(w)
	log.Debug().Str("server", be.url).Str("provider", cmp.Or(cfg.Provider, config.ProviderOllama)).Strs("config_files", loaded.Files).
		Bool("agents_md", instructions != "").Int("agents_md_bytes", len(instructions)).Str("dir", ws.Dir()).
		Msg("starting")
	var recorder orchestrator.Recorder
	switch path, err := storePath(cmd.env.get); {
	case r != nil:
		e.db, e.saved, recorder = r.db, r.saved, r.db
		if cmd.flags.Model == "" && e.saved.Model != "" {
			cfg.Model = e.saved.Model // resume with the session's model unless -m says otherwise
		}
	case err != nil:
		e.warn("sessions are not saved: " + err.Error())
	case cmd.oneShot:
		lazy := &lazyStore{path: path}
		e.closers = append(e.closers, lazy.Close)
		recorder = lazy
	default:
		// The interactive UI lists the saved sessions: it opens the store
		// at once.
		if e.db, err = sqlite.Open(ctx, path, storeOptions()); err != nil {
			e.warn("sessions are not saved: " + err.Error())
			break
		}
		e.closers = append(e.closers, e.db.Close)
		recorder = e.db
	}
	// Embeddings come from Ollama: the model server's client when it is
	// one, else the Ollama OLLAMA_HOST names, if any answers.
	client, ok := be.provider.(*ollama.Client)
	if !ok {
		client = ollamaClient(cfg, cfg.OllamaURL)
	}
	var store memoryStore
	switch st := recorder.(type) {
	case *sqlite.DB:
		store = st
	case *lazyStore:
		store = st
	}
	var mem *memoryWiring
	var memTools []tools.Tool
	if store != nil {
		mem = cmd.wireMemory(ws, store, client, cfg, log)
		memTools = mem.tools
	}
	registry := tools.Default(ws, tools.Options{
		MaxOutputBytes: cfg.Limits.ToolOutputBytes,
		ShellTimeout:   cfg.Limits.ShellTimeout.Duration,
		Env:            cmd.env.list,
		Confinement:    conf,
		Images:         images.Limits{MaxEdge: cfg.Images.MaxEdge, MaxBytes: cfg.Images.MaxBytes},
	}, memTools...)
	if err := checkApprovalTools(loaded, registry); err != nil {
		e.close()
		return nil, err
	}
	e.opts = orchestrator.Options{
		Provider: be.provider,
		Tools:    registry,
		Log:      log,
		Config:   cfg,
		Env: prompts.Env{Dir: ws.Dir(), OS: runtime.GOOS, Arch: runtime.GOARCH, Git: inGitRepo(cmd.dir),
			Instructions: instructions},
		Mode: cmd.mode,
		Dir:  ws.Dir(),
	}
	e.opts.Recorder = recorder
	if mem != nil {
		e.opts.Facts, e.opts.RepoMap, e.indexer = mem.facts, mem.repoMap, mem.indexer
	}
	if err := cmd.wireMCP(ctx, e, loaded, ws.Dir(), log); err != nil {
		e.close()
		return nil, err
	}
	if store, ok := recorder.(checkpoint.Store); ok {
		tracker, err := checkpoint.New(store, ws.Dir(), trackerOptions(cfg.Undo, log))
		if err != nil {
			e.warn("runs cannot be undone: " + err.Error())
		} else {
			ws.Track(tracker)
			e.opts.Checkpoints = tracker
			e.closers = append(e.closers, tracker.Close)
			if db, ok := recorder.(pruner); ok {
				// Keep the checkpoints within their bound, once lathe is done.
				e.closers = append(e.closers, func() error {
					n, err := db.PruneCheckpoints(context.Background(), cfg.Undo.MaxBytes)
					if err != nil {
						log.Error().Err(err).Msg("pruning the checkpoints failed")
					} else if n > 0 {
						log.Debug().Int("checkpoints", n).Int64("max_bytes", cfg.Undo.MaxBytes).Msg("checkpoints pruned")
					}
					return err
				})
			}
		}
	}
	return e, nil
}

// trackerOptions are the checkpoint options of the [undo] config:
// max_file = 0 keeps no file.
func trackerOptions(u config.Undo, log zerolog.Logger) checkpoint.Options {
	o := checkpoint.Options{MaxFile: u.MaxFile, Log: log}
	if u.MaxFile == 0 {
		o.MaxFile = checkpoint.KeepNoFile
	}
	return o
}

func (e *engine) warn(w string) {
	if w != "" {
		e.warnings = append(e.warnings, w)
	}
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

// readInstructions returns the project's AGENTS.md, read as a file the
// project supplies (see safefile): a link out of the project, a FIFO or a
// file of gigabytes cost nothing. It returns a warning when it could not
// be read whole.
func readInstructions(dir string) (text, warning string) {
	b, err := safefile.Read(dir, "AGENTS.md", prompts.InstructionsLimit)
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		warning = fmt.Sprintf("AGENTS.md has more than %d bytes; only the first %d go into the prompt",
			prompts.InstructionsLimit, prompts.InstructionsLimit)
	case errors.Is(err, fs.ErrNotExist):
		return "", ""
	case err != nil:
		return "", fmt.Sprintf("AGENTS.md not read: %v", err)
	}
	return string(b), warning
}

// checkApprovalTools reports a tool name in the approval rules that no
// tool has, where the config sets it: a typo there would silently never
// allow anything.
func checkApprovalTools(loaded config.Loaded, registry *tools.Registry) error {
	for _, name := range loaded.Approval.Tools {
		if _, ok := registry.Lookup(name); !ok {
			return loaded.ErrorAt("approval.tools",
				fmt.Sprintf("unknown tool %q (the tools are %s)", name, strings.Join(registry.Names(), ", ")))
		}
	}
	return nil
}

// confinement is how shell commands run: through lathe's helper, on
// Linux, which confines them as the [sandbox] config says and kills every
// process a command leaves; in a process group elsewhere. Where the
// system cannot confine commands it says so (the warning), and by the
// fallback either runs them unconfined or refuses them.
func (cmd command) confinement(cfg config.Config, dir string) (*tools.Confinement, string) {
	fallback := sandbox.Fallback(cfg.Sandbox.Fallback)
	if fallback == "" {
		fallback = sandbox.Warn // each command is approved by someone who was told
		if cfg.Approval.All {
			fallback = sandbox.Refuse // --yes: nothing runs unconfined unseen
		}
	}
	p := cmd.policy(cfg, dir)
	exe, err := os.Executable()
	if err != nil || runtime.GOOS != "linux" {
		switch {
		case cfg.Sandbox.Mode == string(sandbox.Off):
			return nil, ""
		case fallback == sandbox.Refuse:
			err := fmt.Errorf("%w: it needs Linux, not %s (sandbox fallback is %q)", sandbox.ErrUnsupported, runtime.GOOS, fallback)
			return &tools.Confinement{Exe: exe, Policy: p, Refused: err}, "commands will not run: " + err.Error() +
				` (set [sandbox] fallback = "warn" to run them unconfined, or use --sandbox off)`
		}
		return nil, fmt.Sprintf("commands run unconfined: the sandbox needs Linux (%s here)", runtime.GOOS)
	}
	resolved, warning, err := sandbox.Probe(sandbox.ProbeOptions{Unsupported: cmd.env.get(noSandboxEnv) != ""}).Resolve(p, fallback)
	if err != nil {
		return &tools.Confinement{Exe: exe, Policy: p, Refused: err}, "commands will not run: " + err.Error() +
			` (set [sandbox] fallback = "warn" to run them unconfined, or use --sandbox off)`
	}
	return &tools.Confinement{Exe: exe, Policy: resolved}, warning
}

// noSandboxEnv, set, makes lathe take the system for one that cannot
// confine commands: for testing the fallback.
const noSandboxEnv = "LATHE_TEST_NO_SANDBOX"

// policy is the sandbox policy of the config for the workspace dir:
// lathe's default (writes in the workspace, temp and caches; secrets and
// lathe's own files unreadable; no network) with the config's mode,
// network, and extra paths.
func (cmd command) policy(cfg config.Config, dir string) sandbox.Policy {
	var own []string
	for _, d := range []string{config.DataDir(cmd.env.get), filepath.Dir(config.UserFile(cmd.env.get))} {
		if d != "" && d != "." {
			own = append(own, d)
		}
	}
	p := sandbox.DefaultPolicy(dir, cmd.env.get("HOME"), cmd.env.get, own...)
	p.Mode = sandbox.Mode(cfg.Sandbox.Mode)
	p.Network = cfg.Sandbox.Network
	p.Writable = append(p.Writable, cfg.Sandbox.Writable...)
	p.ReadDeny = append(p.ReadDeny, cfg.Sandbox.ReadableDeny...)
	return p
}
