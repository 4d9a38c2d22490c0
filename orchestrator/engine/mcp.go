package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/tools/mcp"
)

// MCPEnv is what the MCP servers are wired in.
type MCPEnv struct {
	Dir     string // the workspace: where the servers start
	Environ []string
	Getenv  func(string) string
	Log     zerolog.Logger
	// Headless: a run nobody watches start (see Env.Headless).
	Headless bool
	// Trust starts the project's servers without asking.
	Trust   bool
	Version string
	// Sampler has the model answer the servers' sampling requests.
	Sampler mcp.Sampler
}

// MCP is the configured MCP servers, wired.
type MCP struct {
	// Manager is nil when no server is configured.
	Manager *mcp.Manager
	Notices <-chan mcp.Notice
	// Warning says why the project's servers were not started, when
	// their trust could not be read; "" otherwise.
	Warning string
}

// NewMCP sets up the configured MCP servers. Headless, it starts them in
// the background (nothing waits for them here); the interactive UI starts
// them once its first frame is out. The project's servers start only when
// trusted: with env.Trust, or when the user trusted these very servers
// before (the trust file); the UI asks otherwise.
func NewMCP(ctx context.Context, loaded config.Loaded, env MCPEnv) MCP {
	servers := loaded.MCP.Servers
	if len(servers) == 0 {
		return MCP{}
	}
	var out MCP
	trusted, err := mcpTrusted(loaded, env)
	if err != nil {
		out.Warning = "project MCP servers not started: " + err.Error()
	}
	notices := make(chan mcp.Notice, 64)
	level := zerolog.WarnLevel // the UI's log file holds what servers say on stderr
	if env.Headless {
		level = zerolog.DebugLevel // stderr is lathe's own: only with LOG_LEVEL=debug
	}
	out.Manager = mcp.New(ctx, mcp.Options{
		Servers: mcpServers(loaded.MCP), Trusted: trusted, Dir: env.Dir, Environ: env.Environ, Getenv: env.Getenv,
		Log: env.Log, StderrLevel: level,
		OutputBytes: loaded.Limits.ToolOutputBytes, Budget: loaded.MCP.Budget,
		Wait: env.Headless, Version: env.Version, StartTimeout: loaded.MCP.StartWait(env.Headless), Sampler: env.Sampler,
		Notify: func(n mcp.Notice) {
			select {
			case notices <- n:
			default: // nobody reads: the log has it
			}
		},
	})
	out.Notices = notices
	if env.Headless {
		out.Manager.Start()
	}
	return out
}

// mcpServers are the configured MCP servers as the Manager takes them.
func mcpServers(cfg config.MCP) map[string]mcp.Server {
	out := make(map[string]mcp.Server, len(cfg.Servers))
	for name, s := range cfg.Servers {
		out[name] = mcp.Server{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, BearerTokenEnv: s.BearerTokenEnv,
			Off: !s.On(), Tools: s.Tools, Timeout: s.CallTimeout(), Preapproved: s.Approve == "always",
			IgnoreReadOnly: !s.HonoursReadOnly(), Project: s.Project(),
			Elicitation: cfg.ElicitationOf(name), Sampling: cfg.SamplingOf(name)}
	}
	return out
}

// mcpTrusted reports whether the project's MCP servers may start.
func mcpTrusted(loaded config.Loaded, env MCPEnv) (bool, error) {
	project := loaded.MCP.ProjectServers()
	if len(project) == 0 || env.Trust {
		return true, nil
	}
	path := trustFile(env.Getenv)
	if path == "" {
		return false, errors.New("no data directory to keep trust in (set HOME or XDG_DATA_HOME)")
	}
	return mcp.Trusted(path, env.Dir, config.ServersDigest(project))
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

// UntrustedNote says which project servers wait for trust, and how to
// give it.
func UntrustedNote(names []string, oneShot bool) string {
	how := "lathe asks when it starts in the UI; --trust-project-mcp starts them for one run"
	if oneShot {
		how = "pass --trust-project-mcp to start them"
	}
	return fmt.Sprintf("the project's MCP servers %s were not started: a cloned repository must not start programs unasked (%s)",
		strings.Join(names, ", "), how)
}

// KeepTrust returns what records the user's trust in the project's MCP
// servers of dir, as they are now, in the trust file; nil when the
// project declares none.
func KeepTrust(loaded config.Loaded, dir string, getenv func(string) string) func() error {
	project := loaded.MCP.ProjectServers()
	if len(project) == 0 {
		return nil
	}
	return func() error {
		path := trustFile(getenv)
		if path == "" {
			return errors.New("no data directory to keep it in (set HOME or XDG_DATA_HOME)")
		}
		return mcp.Trust(path, dir, config.ServersDigest(project), slices.Collect(maps.Keys(project)), time.Now())
	}
}
