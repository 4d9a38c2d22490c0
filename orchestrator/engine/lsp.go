package engine

import (
	"maps"
	"slices"

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
	m := lsp.New(lsp.Options{
		Dir: ws.Dir(), Root: ws.Root(), Servers: servers, Start: start, Environ: env.Environ,
		Wait: cfg.Diagnostics.Wait.Duration, Warnings: cfg.Diagnostics.Warnings, Log: env.Log,
		Admit:  func(lsp.Server) bool { return env.TrustProjectLSP },
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
		if c.Project() || len(runfiles.Files(runfiles.Command{Root: dir, Dir: dir,
			Argv: append([]string{s.Command}, s.Args...), Getenv: getenv})) > 0 {
			s.Trust = config.LSPDigest(name, c)
		}
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
