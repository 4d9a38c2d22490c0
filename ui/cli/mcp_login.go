package cli

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"lathe/orchestrator/engine"
	"lathe/tools/mcp/oauth"
)

// mcpLogin is lathe mcp login NAME: it authorizes lathe with an HTTP MCP
// server by OAuth, through the browser ($BROWSER, else the system's; the
// URL is printed too), and keeps the tokens for the runs that follow.
type mcpLogin struct {
	f     *Factory
	name  string
	trust bool
}

func newMCPLogin(f *Factory) command { return &mcpLogin{f: f} }

func (c *mcpLogin) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.trust, "trust-project-mcp", false, "")
}

func (c *mcpLogin) words(args []string) error  { return oneServer("mcp login", args, &c.name) }
func (c *mcpLogin) check(*pflag.FlagSet) error { return nil }

func (c *mcpLogin) run(ctx context.Context) error {
	f := c.f
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	for _, w := range loaded.Warnings {
		f.warn(w)
	}
	if _, ok := loaded.MCP.Servers[c.name]; !ok {
		return usagef("mcp login: no MCP server is named %q (lathe mcp list shows them)", c.name)
	}
	// Not started: the login makes its own connection.
	m := engine.NewMCP(ctx, loaded, engine.MCPEnv{Dir: f.Dir, Environ: f.Env.list, Getenv: f.Env.get, Log: zerolog.Nop(),
		Trust: c.trust, Version: buildVersion()})
	if m.Warning != "" {
		f.warn(m.Warning)
	}
	defer m.Manager.Close()
	browser := oauth.Browser{Env: f.Env.get("BROWSER"), GOOS: runtime.GOOS}
	rec, path, err := m.Manager.Login(ctx, c.name, browser.Open, f.ErrOut)
	if err != nil {
		return fmt.Errorf("mcp login %s: %w", c.name, err)
	}
	scope := ""
	if len(rec.Scopes) > 0 {
		scope = fmt.Sprintf(" (scope %q)", strings.Join(rec.Scopes, " "))
	}
	_, err = fmt.Fprintf(f.Out, "Logged in to %s%s: the tokens are kept in %s\n", c.name, scope, path)
	return err
}

// mcpLogout is lathe mcp logout NAME: it forgets what lathe keeps of its
// authorization with a server, tokens and registration.
type mcpLogout struct {
	f    *Factory
	name string
}

func newMCPLogout(f *Factory) command { return &mcpLogout{f: f} }

func (c *mcpLogout) define(fs *pflag.FlagSet)   { c.f.dirFlag(fs) }
func (c *mcpLogout) words(args []string) error  { return oneServer("mcp logout", args, &c.name) }
func (c *mcpLogout) check(*pflag.FlagSet) error { return nil }

func (c *mcpLogout) run(context.Context) error {
	dir := engine.TokenDir(c.f.Env.get)
	if dir == "" {
		return errors.New("no data directory: set XDG_DATA_HOME or HOME")
	}
	had, err := oauth.Store{Dir: dir}.Delete(c.name)
	switch {
	case err != nil:
		return fmt.Errorf("mcp logout %s: %w", c.name, err)
	case !had:
		_, err = fmt.Fprintf(c.f.Out, "lathe kept no tokens for %s\n", c.name)
	default:
		_, err = fmt.Fprintf(c.f.Out, "Logged out of %s: its tokens are deleted\n", c.name)
	}
	return err
}

// serverName is what an MCP server may be called (config checks the same).
var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// oneServer takes the one word after name: a server's name.
func oneServer(name string, args []string, to *string) error {
	switch {
	case len(args) == 0:
		return usagef("%s: give the server's name (lathe mcp list shows them)", name)
	case len(args) > 1:
		return usagef("%s: unexpected argument %q", name, args[1])
	case !serverName.MatchString(args[0]):
		return usagef("%s: %q is not an MCP server's name", name, args[0])
	}
	*to = args[0]
	return nil
}
