package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/tools/mcp"
)

// wireMCP sets up the configured MCP servers and starts them in the
// background: nothing waits for them here. The project's servers start
// only when trusted: with --trust-project-mcp, or when the user trusted
// these very servers before (the trust file); the UI asks otherwise.
func (cmd command) wireMCP(ctx context.Context, e *engine, loaded config.Loaded, dir string, log zerolog.Logger) error {
	servers := loaded.MCP.Servers
	if len(servers) == 0 {
		return nil
	}
	trusted, err := cmd.mcpTrusted(loaded, dir)
	if err != nil {
		e.warn("project MCP servers not started: " + err.Error())
	}
	e.notices = make(chan mcp.Notice, 64)
	notices := e.notices
	headless := cmd.oneShot || cmd.sub != ""
	level := zerolog.WarnLevel // the UI's log file holds what servers say on stderr
	if headless {
		level = zerolog.DebugLevel // stderr is lathe's own: only with LOG_LEVEL=debug
	}
	e.mcp = mcp.New(ctx, mcp.Options{
		Servers: mcpServers(servers), Trusted: trusted, Dir: dir, Environ: cmd.env.list, Getenv: cmd.env.get,
		Log: log, StderrLevel: level,
		OutputBytes: loaded.Limits.ToolOutputBytes, Budget: loaded.MCP.Budget,
		Wait: headless, Version: buildVersion(),
		Notify: func(n mcp.Notice) {
			select {
			case notices <- n:
			default: // nobody reads: the log has it
			}
		},
	})
	if headless {
		e.mcp.Start()
	} // the interactive UI starts them once its first frame is out
	e.opts.Extra = e.mcp
	e.closers = append(e.closers, func() error { e.mcp.Close(); return nil })
	return nil
}

// mcpServers are the configured MCP servers as the Manager takes them.
func mcpServers(servers map[string]config.MCPServer) map[string]mcp.Server {
	out := make(map[string]mcp.Server, len(servers))
	for name, s := range servers {
		out[name] = mcp.Server{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, BearerTokenEnv: s.BearerTokenEnv,
			Off: !s.On(), Tools: s.Tools, Timeout: s.CallTimeout(), Preapproved: s.Approve == "always",
			IgnoreReadOnly: !s.HonoursReadOnly(), Project: s.Project()}
	}
	return out
}

// mcpTrusted reports whether the project's MCP servers may start.
func (cmd command) mcpTrusted(loaded config.Loaded, dir string) (bool, error) {
	project := loaded.MCP.ProjectServers()
	if len(project) == 0 || cmd.trustMCP {
		return true, nil
	}
	path := trustFile(cmd.env.get)
	if path == "" {
		return false, errors.New("no data directory to keep trust in (set HOME or XDG_DATA_HOME)")
	}
	return mcp.Trusted(path, dir, config.ServersDigest(project))
}

// trustFile is where the trusted project servers are kept; "" when there
// is no data directory.
func trustFile(getenv func(string) string) string {
	dir := config.DataDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, mcp.TrustFileName)
}

// untrustedNote says which project servers wait for trust, and how to give it.
func untrustedNote(names []string, oneShot bool) string {
	how := "lathe asks when it starts in the UI; --trust-project-mcp starts them for one run"
	if oneShot {
		how = "pass --trust-project-mcp to start them"
	}
	return fmt.Sprintf("the project's MCP servers %s were not started: a cloned repository must not start programs unasked (%s)",
		strings.Join(names, ", "), how)
}

// buildVersion is lathe's module version, told to MCP servers.
func buildVersion() string { return moduleVersion(debug.ReadBuildInfo()) }

// serialized returns fn behind a lock, through which the MCP servers'
// notices are printed too, as warnings, while the run goes on; stop ends
// that, printing the notices still queued.
func (e *engine) serialized(fn func(orchestrator.Event)) (emit func(orchestrator.Event), stop func()) {
	var mu sync.Mutex
	emit = func(ev orchestrator.Event) {
		mu.Lock()
		defer mu.Unlock()
		fn(ev)
	}
	if e.notices == nil {
		return emit, func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case n := <-e.notices:
				emit(orchestrator.Warning{Text: n.Text})
			case <-done:
				return
			}
		}
	})
	return emit, func() {
		close(done)
		wg.Wait()
		for {
			select {
			case n := <-e.notices:
				emit(orchestrator.Warning{Text: n.Text})
			default:
				return
			}
		}
	}
}

// keepTrust returns what records the user's trust in the project's MCP
// servers, as they are now, in the trust file.
func (cmd command) keepTrust(loaded config.Loaded, dir string) func() error {
	project := loaded.MCP.ProjectServers()
	if len(project) == 0 {
		return nil
	}
	return func() error {
		path := trustFile(cmd.env.get)
		if path == "" {
			return errors.New("no data directory to keep it in (set HOME or XDG_DATA_HOME)")
		}
		return mcp.Trust(path, dir, config.ServersDigest(project), slices.Collect(maps.Keys(project)), time.Now())
	}
}
