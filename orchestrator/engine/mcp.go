package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/tools/mcp"
	"lathe/tools/mcp/oauth"
	"lathe/tools/runfiles"
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
// them once its first frame is out. The servers that need trust (the
// project's, and those that run files of the project) start only when
// trusted with what they run: with env.Trust, or when the user trusted
// them as they are before (the trust file); the UI asks otherwise.
func NewMCP(ctx context.Context, loaded config.Loaded, env MCPEnv) MCP {
	servers := loaded.MCP.Servers
	if len(servers) == 0 {
		return MCP{}
	}
	var out MCP
	sealed, err := trustedSeals(env)
	if err != nil {
		out.Warning = "MCP servers that need your trust not started: " + err.Error()
	}
	notices := make(chan mcp.Notice, 64)
	level := zerolog.WarnLevel // the UI's log file holds what servers say on stderr
	if env.Headless {
		level = zerolog.DebugLevel // stderr is lathe's own: only with LOG_LEVEL=debug
	}
	out.Manager = mcp.New(ctx, mcp.Options{
		Servers: mcpServers(loaded.MCP, env.Dir), Trusted: env.Trust, Sealed: sealed, Seal: sealer(servers, env),
		Dir: env.Dir, Environ: env.Environ, Getenv: env.Getenv,
		Log: env.Log, StderrLevel: level,
		OutputBytes: loaded.Limits.ToolOutputBytes, Budget: loaded.MCP.Budget,
		Wait: env.Headless, Version: env.Version, TokenDir: TokenDir(env.Getenv),
		StartTimeout: loaded.MCP.StartWait(env.Headless), Sampler: env.Sampler,
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

// mcpServers are the configured MCP servers as the Manager takes them,
// started in dir unless their cwd says otherwise. A python server of the
// user's own that takes its program from -m or -c gets PYTHONSAFEPATH=1,
// unless its env sets it: python would put its working directory, the
// project, first on its import path, and import whatever a command in the
// sandbox left there under the name of a module it uses.
func mcpServers(cfg config.MCP, dir string) map[string]mcp.Server {
	out := make(map[string]mcp.Server, len(cfg.Servers))
	for name, s := range cfg.Servers {
		out[name] = mcp.Server{Command: s.Command, Args: s.Args, Env: serverEnv(s, dir), Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, BearerTokenEnv: s.BearerTokenEnv, OAuth: oauthConfig(s.OAuth),
			Off: !s.On(), Tools: s.Tools, Timeout: s.CallTimeout(), Preapproved: s.Approve == "always",
			IgnoreReadOnly: !s.HonoursReadOnly(), Project: s.Project(),
			Elicitation: cfg.ElicitationOf(name), Sampling: cfg.SamplingOf(name)}
	}
	return out
}

// oauthConfig is a server's oauth table as the MCP client takes it.
func oauthConfig(o *config.MCPOAuth) oauth.Config {
	if o == nil {
		return oauth.Config{}
	}
	return oauth.Config{Grant: o.Grant, ClientID: o.ClientID, ClientSecretEnv: o.ClientSecretEnv,
		ClientMetadataURL: o.ClientMetadataURL, PrivateKeyFile: o.PrivateKeyFile, SigningAlgorithm: o.SigningAlgorithm,
		IdPIssuer: o.IdPIssuer, IdPTokenEndpoint: o.IdPTokenEndpoint, IdPClientID: o.IdPClientID, IDTokenEnv: o.IDTokenEnv}
}

// TokenDir is where the OAuth tokens of HTTP MCP servers are kept, in
// lathe's data directory (which the sandbox keeps commands from); "" when
// there is none.
func TokenDir(getenv func(string) string) string {
	dir := config.DataDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "mcp-oauth")
}

// serverEnv is what a stdio server gets on top of lathe's environment:
// its env, and PYTHONSAFEPATH=1 as mcpServers says.
func serverEnv(s config.MCPServer, dir string) map[string]string {
	env := s.Env
	if _, set := env["PYTHONSAFEPATH"]; !set && !s.Project() && s.Command != "" &&
		runfiles.CwdOnImportPath(append([]string{s.Command}, s.Args...)) && within(serverDir(s, dir), dir) {
		env = maps.Clone(env)
		if env == nil {
			env = map[string]string{}
		}
		env["PYTHONSAFEPATH"] = "1"
	}
	return env
}

// serverDir is where a stdio server starts: its cwd, taken from the
// workspace dir, or dir.
func serverDir(s config.MCPServer, dir string) string {
	switch {
	case s.Cwd == "":
		return dir
	case filepath.IsAbs(s.Cwd):
		return filepath.Clean(s.Cwd)
	}
	return filepath.Join(dir, s.Cwd)
}

// sealer returns what the Manager seals each server with: the digest of
// its definition and of the files of the workspace its command line runs
// (package runfiles), resolved in its own environment.
func sealer(servers map[string]config.MCPServer, env MCPEnv) func(string) mcp.Seal {
	return func(name string) mcp.Seal {
		s, ok := servers[name]
		if !ok {
			return mcp.Seal{}
		}
		def := config.ServerDigest(name, s)
		if s.Command == "" {
			return mcp.Seal{Digest: def}
		}
		own := serverEnv(s, env.Dir)
		getenv := func(k string) string {
			if v, ok := own[k]; ok {
				return v
			}
			return env.Getenv(k)
		}
		files := runfiles.Files(runfiles.Command{Root: env.Dir, Dir: serverDir(s, env.Dir),
			Argv: append([]string{s.Command}, s.Args...), Getenv: getenv})
		if len(files) == 0 {
			return mcp.Seal{Digest: def}
		}
		sum := sha256.Sum256([]byte(def + "\n" + runfiles.Digest(env.Dir, files)))
		seal := mcp.Seal{Digest: "sha256:" + hex.EncodeToString(sum[:])}
		for _, f := range files {
			rel, _ := filepath.Rel(env.Dir, f)
			seal.Files = append(seal.Files, rel)
		}
		return seal
	}
}

// trustedSeals are the seals the user trusted the servers of the
// workspace with before.
func trustedSeals(env MCPEnv) (map[string]string, error) {
	path := trustFile(env.Getenv)
	if path == "" {
		return nil, errors.New("no data directory to keep trust in (set HOME or XDG_DATA_HOME)")
	}
	return mcp.Sealed(path, env.Dir)
}

// within reports whether path is dir or lies beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
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

// UntrustedNotes say which servers wait for trust, and why, a line per
// reason: the project's that were never trusted together, then one line
// for each that changed since it was trusted or that runs files of the
// project; and how to give the trust.
func UntrustedNotes(servers []mcp.Status, oneShot bool) []string {
	how := "lathe asks when it starts in the UI; --trust-project-mcp starts them for one run"
	if oneShot {
		how = "pass --trust-project-mcp to start them"
	}
	var fresh []string
	var out []string
	for _, s := range servers {
		switch {
		case s.State != mcp.StateUntrusted:
		case s.Changed:
			out = append(out, fmt.Sprintf("the MCP server %s was not started: what it runs changed since you trusted it (%s), "+
				"and a command in the sandbox may have changed it (%s)", s.Name, strings.Join(s.Runs, ", "), how))
		case !s.Project:
			out = append(out, fmt.Sprintf("the MCP server %s was not started: it would run %s from the project, "+
				"which a command in the sandbox may have written (%s)", s.Name, strings.Join(s.Runs, ", "), how))
		default:
			fresh = append(fresh, s.Name)
		}
	}
	if len(fresh) > 0 {
		out = append([]string{fmt.Sprintf("the project's MCP servers %s were not started: a cloned repository must not start programs unasked (%s)",
			strings.Join(fresh, ", "), how)}, out...)
	}
	return out
}

// KeepTrust returns what records, in the trust file, the user's trust in
// the servers of dir that m started once trusted, with what they run;
// nil without servers.
func KeepTrust(m *mcp.Manager, dir string, getenv func(string) string) func() error {
	if m == nil {
		return nil
	}
	return func() error {
		path := trustFile(getenv)
		if path == "" {
			return errors.New("no data directory to keep it in (set HOME or XDG_DATA_HOME)")
		}
		return mcp.Trust(path, dir, m.Seals(), time.Now())
	}
}
