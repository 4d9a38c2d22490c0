// Package engine wires what a session runs with from the config: the
// workspace and its tools, the model backend, the session store's
// memory and checkpoints, the MCP servers. Both user interfaces (the
// terminal UI and the one-shot run) and the subcommands that look at a
// session build one through New.
package engine

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
	"lathe/orchestrator/hooks"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider/images"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
	"lathe/tools/lsp"
	"lathe/tools/mcp"
	"lathe/tools/sandbox"
	"lathe/tools/skill"
)

// Env is what a session is wired in: the process's environment and
// what the command line decided.
type Env struct {
	// Dir is the working directory: the workspace.
	Dir string
	// Environ is the process's environment (KEY=VALUE), which commands
	// inherit; Getenv reads it.
	Environ []string
	Getenv  func(string) string
	// Store keeps the session; nil keeps nothing ("sessions are not
	// saved" is then among the warnings, when StoreErr says why).
	Store    Store
	StoreErr error
	// Saved is the session to resume, from Store; nil for a new one.
	Saved *session.Saved
	// ModelSet says the model was named for this run (-m): a resumed
	// session keeps its own model otherwise.
	ModelSet bool
	// Mode is the mode to start in; nil for the default.
	Mode mode.Mode
	// Headless is a run nobody watches as it starts (-p, a subcommand):
	// the MCP servers are waited for, what they say on stderr is logged
	// at debug level, and the code index is not brought up to date in
	// the background.
	Headless bool
	// TrustProjectMCP starts the project's MCP servers without asking
	// (--trust-project-mcp).
	TrustProjectMCP bool
	// TrustProjectLSP lets the language servers that need trust start
	// without it (--trust-project-lsp).
	TrustProjectLSP bool
	// TrustProjectHooks runs the project's hooks without asking
	// (--trust-project-hooks).
	TrustProjectHooks bool
	// Version is lathe's version, told to MCP servers.
	Version string
	Log     zerolog.Logger
}

// Engine is what a session runs with, wired from the config.
type Engine struct {
	// Options are the session's: orchestrator.New(e.Options) starts it.
	Options orchestrator.Options
	// Workspace is where the tools work: a front end that speaks to an
	// editor has them read and write through it (Workspace.UseEditor).
	Workspace *tools.Workspace
	Backend   Backend
	// MCP is the MCP servers; nil when none is configured. Notices are
	// what they do in the background.
	MCP     *mcp.Manager
	Notices <-chan mcp.Notice
	// LSP is the language servers; nil when they cannot run. LSPTrust
	// is the user's trust in those that need it.
	LSP      *lsp.Manager
	LSPTrust *LSPTrust
	notices  chan mcp.Notice // Notices, which the MCP servers' and the language servers' join
	// Hooks runs the configured hooks; nil when none is configured.
	Hooks *hooks.Runner
	// Skills are the Agent Skills found; nil when [skills] is off.
	Skills *skill.Catalog
	// Indexer brings the code index up to date in the background; nil
	// when there is none to keep (or it is not the UI's to keep).
	Indexer *Indexer
	// Warnings are what the user should know before the session starts.
	Warnings []string
	closers  []func() error
}

// New wires a session of cfg in env. Close releases what it opened.
func New(ctx context.Context, loaded config.Loaded, env Env) (*Engine, error) {
	cfg := loaded.Config
	ws, err := tools.OpenWorkspace(env.Dir)
	if err != nil {
		return nil, &WorkspaceError{err}
	}
	be, err := NewBackend(cfg)
	if err != nil {
		ws.Close()
		return nil, err
	}
	e := &Engine{closers: []func() error{ws.Close}, Backend: be, Workspace: ws, notices: make(chan mcp.Notice, 64)}
	e.Notices = e.notices
	conf, warning := Confinement(cfg, ws.Dir(), env.Getenv)
	e.warn(warning)
	e.keepTemp(conf)
	instructions, w := readInstructions(ws.Dir())
	e.warn(w)
	env.Log.Debug().Str("server", be.URL).Str("provider", cmp.Or(cfg.Provider, config.ProviderOllama)).
		Strs("config_files", loaded.Files).Bool("agents_md", instructions != "").Int("agents_md_bytes", len(instructions)).
		Str("dir", ws.Dir()).Msg("starting")
	if env.StoreErr != nil {
		e.warn("sessions are not saved: " + env.StoreErr.Error())
	}
	if env.Saved != nil && !env.ModelSet && env.Saved.Model != "" {
		cfg.Model = env.Saved.Model // resume with the session's model unless -m says otherwise
	}
	opts := tools.Options{
		MaxOutputBytes: cfg.Limits.ToolOutputBytes,
		ShellTimeout:   cfg.Limits.ShellTimeout.Duration,
		Env:            env.Environ,
		Confinement:    conf,
		Images:         images.Limits{MaxEdge: cfg.Images.MaxEdge, MaxBytes: cfg.Images.MaxBytes},
	}
	e.Options = orchestrator.Options{
		Provider: be.Provider,
		Log:      env.Log,
		Config:   cfg,
		Env: prompts.Env{Dir: ws.Dir(), OS: runtime.GOOS, Arch: runtime.GOARCH, Git: inGitRepo(ws.Dir()),
			Instructions: instructions},
		Mode: env.Mode,
		Dir:  ws.Dir(),
	}
	var memTools []tools.Tool
	if env.Store != nil {
		e.Options.Recorder = env.Store
		mem := wireMemory(ws, env.Store, be.Embedder, cfg, env.Headless, env.Log)
		memTools = mem.tools
		e.Options.Facts, e.Options.RepoMap, e.Indexer = mem.facts, mem.repoMap, mem.indexer
	}
	if e.LSP = e.wireLSP(cfg, ws, conf, env); e.LSP != nil {
		memTools = append(memTools, e.LSP.Tool(ws))
		if cfg.Navigation.Enabled {
			memTools = append(memTools, e.LSP.NavigationTools(ws)...)
		}
	}
	if cfg.Skills.Enabled {
		cat, warnings := Skills(ws.Dir(), env.Getenv)
		for _, w := range warnings {
			e.warn(w)
		}
		e.Skills = cat
		if cat.Len() > 0 {
			memTools = append(memTools, skill.Tool(cat, cfg.Limits.ToolOutputBytes-skillRoom))
			e.Options.Env.Skills = cat.View(SkillsBudget(cfg))
		}
	}
	e.Options.Tools = tools.Default(ws, opts, memTools...)
	if err := checkApprovalTools(loaded, e.Options.Tools); err != nil {
		e.Close()
		return nil, err
	}
	m := NewMCP(ctx, loaded, MCPEnv{Dir: ws.Dir(), Environ: env.Environ, Getenv: env.Getenv, Log: env.Log,
		Headless: env.Headless, Trust: env.TrustProjectMCP, Version: env.Version,
		Sampler: &sampler{provider: be.Provider, model: cfg.Model}})
	e.warn(m.Warning)
	if m.Manager != nil {
		e.MCP, e.Options.Extra = m.Manager, m.Manager
		e.closers = append(e.closers, func() error { m.Manager.Close(); return nil })
		e.forward(m.Notices)
	}
	helper := ""
	if conf != nil {
		helper = conf.Exe
	}
	runner, w := NewHooks(loaded, HooksEnv{Dir: ws.Dir(), Environ: env.Environ, Getenv: env.Getenv, Helper: helper,
		Trust: env.TrustProjectHooks, Log: env.Log})
	e.warn(w)
	if runner != nil {
		e.Hooks, e.Options.Hooks = runner, runner
		if dir := config.StateDir(env.Getenv); dir != "" {
			t := hooks.NewTranscripts(filepath.Join(dir, "transcripts"), nil)
			e.Options.Transcripts = t
			e.closers = append(e.closers, t.Close)
		}
	}
	if env.Store != nil {
		e.wireCheckpoints(ctx, ws, env.Store, cfg.Undo, env.Log)
	}
	return e, nil
}

// WorkspaceError is a working directory no session can work in: the
// command line's to fix.
type WorkspaceError struct{ Err error }

func (e *WorkspaceError) Error() string { return e.Err.Error() }
func (e *WorkspaceError) Unwrap() error { return e.Err }

// Close releases what New opened, the last opened first: the
// checkpoints are pruned while the store is still open.
func (e *Engine) Close() {
	for _, c := range slices.Backward(e.closers) {
		_ = c()
	}
}

// keepTemp makes the commands' temp directory for the whole session, so
// that what one command leaves there the next finds, and removes it at
// Close. (The helper would make one for each command, and remove it.)
func (e *Engine) keepTemp(conf *tools.Confinement) {
	if conf == nil || conf.Policy.Mode != sandbox.WorkspaceWrite || conf.Policy.TempDir == "" {
		return
	}
	dir := conf.Policy.TempDir
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return
	}
	e.closers = append(e.closers, func() error { return os.RemoveAll(dir) })
}

// notify tells n to whoever reads Notices; dropped when nobody does.
func (e *Engine) notify(n mcp.Notice) {
	select {
	case e.notices <- n:
	default: // nobody reads: the log has it
	}
}

// forward passes the notices of from on to Notices until Close.
func (e *Engine) forward(from <-chan mcp.Notice) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case n := <-from:
				e.notify(n)
			case <-done:
				return
			}
		}
	}()
	e.closers = append(e.closers, func() error { close(done); return nil })
}

func (e *Engine) warn(w string) {
	if w != "" {
		e.Warnings = append(e.Warnings, w)
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
