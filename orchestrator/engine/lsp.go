package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"lathe/config"
	"lathe/tools"
	"lathe/tools/lsp"
	"lathe/tools/mcp"
	"lathe/tools/runfiles"
)

// wireLSP sets up the language servers of the workspace: none starts
// until a file of its language is read or changed. The file tools tell
// them what changed, the diagnostics tool asks them what is wrong, and
// the navigation tools, when [navigation] offers them, where names are
// defined and used.
// They run in the sandbox (read-only workspace, caches and a temp
// directory of their own writable, no network); where commands may not
// run unconfined, neither may they.
func (e *Engine) wireLSP(cfg config.Config, ws *tools.Workspace, conf *tools.Confinement, env Env) *lsp.Manager {
	start := lsp.Unconfined(ws.Dir())
	switch {
	case conf != nil && conf.Refused != nil:
		return nil
	case conf != nil:
		start = lsp.Confined(conf.Exe, lsp.ServerPolicy(conf.Policy))
	}
	servers := LSPServers(cfg, ws.Dir(), env.Getenv)
	trust, err := NewLSPTrust(cfg, ws.Dir(), env.Getenv, env.TrustProjectLSP)
	if err != nil {
		e.warn("language servers that need your trust not started: " + err.Error())
	}
	e.LSPTrust = trust
	m := lsp.New(lsp.Options{
		Dir: ws.Dir(), Root: ws.Root(), Servers: servers, Start: start, Environ: env.Environ,
		Wait: cfg.Diagnostics.Wait.Duration, Warnings: cfg.Diagnostics.Warnings, ToolWait: cfg.Navigation.Wait.Duration,
		Log:    env.Log,
		Admit:  trust.Admit,
		Notify: func(text string) { e.notify(mcp.Notice{Text: text, Failed: true}) },
	})
	if cfg.Diagnostics.Wait.Duration > 0 {
		ws.Diagnose(m)
	}
	e.closers = append(e.closers, func() error { m.Close(); return nil })
	return m
}

// LSPServers are the language servers of cfg, in order of preference:
// the user's and the project's own (by name), then the built-ins with
// what [lsp.NAME] changed of them; those turned off left out. A server
// the project declared, or one whose command runs a file of the
// workspace (which a command in the sandbox may have written), needs
// trust.
func LSPServers(cfg config.Config, dir string, getenv func(string) string) []lsp.Server {
	var own, builtin []lsp.Server
	byName := map[string]lsp.Server{}
	for _, b := range lsp.Builtins() {
		byName[b.Name] = b
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.LSP)) {
		c := cfg.LSP[name]
		if !c.On() {
			delete(byName, name)
			continue
		}
		s, isBuiltin := byName[name]
		s.Name = name
		if c.Command != "" {
			s.Command, s.Args = c.Command, c.Args
		} else if c.Args != nil {
			s.Args = c.Args
		}
		if len(c.Extensions) > 0 {
			s.Extensions = c.Extensions
		}
		if len(c.RootMarkers) > 0 {
			s.RootMarkers = c.RootMarkers
		}
		s.Env, s.Languages = c.Env, c.Languages
		s.Trust = lspSeal(name, c, s, dir, getenv)
		if isBuiltin {
			byName[name] = s
		} else {
			own = append(own, s)
		}
	}
	for _, b := range lsp.Builtins() {
		if s, ok := byName[b.Name]; ok {
			builtin = append(builtin, s)
		}
	}
	return append(own, builtin...)
}

// lspSeal is what trust in a language server is given to, as for an MCP
// server: its definition, and the files of the workspace dir its command
// line runs (package runfiles), in its own environment; "" for a server
// that needs no trust: one of the user's that runs no file of the
// workspace.
func lspSeal(name string, c config.LSPServer, s lsp.Server, dir string, getenv func(string) string) string {
	files := runfiles.Files(runfiles.Command{Root: dir, Dir: dir, Argv: append([]string{s.Command}, s.Args...),
		Getenv: serverGetenv(s, getenv)})
	switch {
	case len(files) > 0:
		sum := sha256.Sum256([]byte(config.LSPDigest(name, c) + "\n" + runfiles.Digest(dir, files)))
		return "sha256:" + hex.EncodeToString(sum[:])
	case c.Project():
		return config.LSPDigest(name, c)
	}
	return ""
}

// LSPTrust is the user's trust in the language servers that need it (see
// LSPServers): those trusted before, as the trust file of the MCP
// servers keeps them (per project, each with its seal), and those trusted
// in the session. A server is admitted while its seal is the one trusted,
// checked at every start: one whose definition or files changed since
// waits for trust again. Its methods may be called from any goroutine.
type LSPTrust struct {
	cfg    map[string]config.LSPServer
	dir    string
	getenv func(string) string
	all    bool // --trust-project-lsp

	mu      sync.Mutex
	trusted map[string]string // by name, the seal trusted
}

// NewLSPTrust reads the trust given before to the language servers of cfg
// in the workspace dir; all admits every server (--trust-project-lsp).
// The error says why that trust could not be read (none is then).
func NewLSPTrust(cfg config.Config, dir string, getenv func(string) string, all bool) (*LSPTrust, error) {
	t := &LSPTrust{cfg: cfg.LSP, dir: dir, getenv: getenv, all: all, trusted: map[string]string{}}
	if all {
		return t, nil
	}
	path := trustFile(getenv)
	if path == "" {
		return t, errors.New("no data directory to keep trust in (set HOME or XDG_DATA_HOME)")
	}
	saved, err := mcp.SealedLSP(path, dir)
	maps.Copy(t.trusted, saved)
	return t, err
}

// Admit reports whether s, which needs trust, may start: with
// --trust-project-lsp, or when it is what the user trusted.
func (t *LSPTrust) Admit(s lsp.Server) bool {
	if t.all {
		return true
	}
	t.mu.Lock()
	want, ok := t.trusted[s.Name]
	t.mu.Unlock()
	return ok && want == lspSeal(s.Name, t.cfg[s.Name], s, t.dir, t.getenv)
}

// Trust admits servers as they are now, for the session, and keeps the
// trust in the trust file.
func (t *LSPTrust) Trust(servers []lsp.Server) error {
	seals := map[string]string{}
	for _, s := range servers {
		seals[s.Name] = lspSeal(s.Name, t.cfg[s.Name], s, t.dir, t.getenv)
	}
	t.mu.Lock()
	maps.Copy(t.trusted, seals)
	t.mu.Unlock()
	path := trustFile(t.getenv)
	if path == "" {
		return errors.New("no data directory to keep it in (set HOME or XDG_DATA_HOME)")
	}
	return mcp.TrustLSP(path, t.dir, seals, time.Now())
}

// Waiting are the servers of m that wait for the user's trust, each
// "name: command args (why)"; TrustWaiting trusts them (see Trust).
func (t *LSPTrust) Waiting(m *lsp.Manager) []string {
	var out []string
	for _, s := range m.Untrusted() {
		line := s.Name + ": " + strings.Join(append([]string{s.Command}, s.Args...), " ")
		if t.cfg[s.Name].Project() {
			out = append(out, line+" (the project declares it)")
			continue
		}
		var runs []string
		for _, f := range t.files(s) {
			rel, _ := filepath.Rel(t.dir, f)
			runs = append(runs, rel)
		}
		out = append(out, line+" (yours; it runs "+strings.Join(runs, ", ")+" from the project, which a command in the sandbox may have written)")
	}
	return out
}

// TrustWaiting trusts the servers of m that wait for it.
func (t *LSPTrust) TrustWaiting(m *lsp.Manager) error { return t.Trust(m.Untrusted()) }

// files are the files of the workspace s's command line runs.
func (t *LSPTrust) files(s lsp.Server) []string {
	return runfiles.Files(runfiles.Command{Root: t.dir, Dir: t.dir, Argv: append([]string{s.Command}, s.Args...),
		Getenv: serverGetenv(s, t.getenv)})
}

// serverGetenv reads s's environment: its own env over lathe's.
func serverGetenv(s lsp.Server, getenv func(string) string) func(string) string {
	return func(k string) string {
		if v, ok := s.Env[k]; ok {
			return v
		}
		return getenv(k)
	}
}
