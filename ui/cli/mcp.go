package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator/engine"
	"lathe/prompts/human"
	"lathe/tools/mcp"
)

// mcpList is lathe mcp list: every configured server, started (the
// project's only when trusted), with its state and its tools. It fails
// (exit 1) when a server that should have started did not.
type mcpList struct {
	f     *Factory
	json  bool
	trust bool
}

func newMCPList(f *Factory) command { return &mcpList{f: f} }

func (c *mcpList) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
	fs.BoolVar(&c.trust, "trust-project-mcp", false, "")
}

func (c *mcpList) words(args []string) error  { return noWords("mcp list", args) }
func (c *mcpList) check(*pflag.FlagSet) error { return nil }

func (c *mcpList) run(ctx context.Context) error {
	f := c.f
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	for _, w := range loaded.Warnings {
		f.warn(w)
	}
	m := engine.NewMCP(ctx, loaded, engine.MCPEnv{Dir: f.Dir, Environ: f.Env.list, Getenv: f.Env.get, Log: zerolog.Nop(),
		Headless: true, Trust: c.trust, Version: buildVersion()})
	if m.Warning != "" {
		f.warn(m.Warning)
	}
	var list []mcp.Status
	if m.Manager != nil {
		defer m.Manager.Close()
		m.Manager.WaitStarted(ctx)
		list = m.Manager.Servers()
	}
	if c.json {
		err = writeMCPJSON(f.Out, list, loaded.MCP.Servers)
	} else {
		err = writeMCPText(f.Out, list, loaded)
	}
	if err != nil {
		return err
	}
	var failed []string
	for _, s := range list {
		if s.State == mcp.StateFailed {
			failed = append(failed, s.Name)
		}
	}
	if len(failed) > 0 {
		return errors.New("MCP servers that did not start: " + strings.Join(failed, ", "))
	}
	return nil
}

// writeMCPText prints the servers as a table, each with its tools below.
func writeMCPText(w io.Writer, list []mcp.Status, loaded config.Loaded) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No MCP server is configured: add one under [mcp.servers.NAME] in your config (see the README's MCP section).")
		return err
	}
	total := 0
	// The servers' lines in columns, as their tools' are.
	var nameW, transportW, targetW int
	for _, s := range list {
		nameW, transportW = max(nameW, len(s.Name)), max(transportW, len(s.Transport))
		targetW = max(targetW, utf8.RuneCountInString(human.Line(s.Target, 50)))
	}
	for _, s := range list {
		state := string(s.State)
		if s.Why != "" && s.State != mcp.StateReady {
			state += ": " + s.Why
		}
		if s.State == mcp.StateUntrusted {
			state = "not started, waits for your trust: " + s.TrustReason() + " (pass --trust-project-mcp, or trust it in the UI)"
		}
		line := fmt.Sprintf("%-*s  %-*s  %s  %s", nameW, s.Name, transportW, s.Transport,
			padRunes(human.Line(s.Target, 50), targetW), state)
		if s.State == mcp.StateReady {
			line += fmt.Sprintf("  %s  ~%s tokens", human.Plural(len(s.Tools), "tool"), human.Thousands(s.Tokens))
			total += s.Tokens
		}
		fmt.Fprintln(w, line)
		approve := "asks first"
		if loaded.MCP.Servers[s.Name].Approve == "always" {
			approve = "approved by your config"
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, t := range s.Tools {
			how := approve
			if t.ReadOnly {
				how = "reads"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, how, human.Line(t.Description, 70))
		}
		for _, t := range s.LeftOut {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t, "left out", "it needs MCP tasks, which lathe does not support yet")
		}
		for _, p := range s.Prompts {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", human.Line(p.Command(), 60), "prompt", human.Line(firstLine(p.Description), 70))
		}
		for _, r := range s.Resources {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", human.Line(r.Mention(), 60), "resource", human.Line(firstLine(cmp.Or(r.Description, r.Title, r.Name)), 70))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	numCtx := loaded.Options.NumCtx
	budget := int(loaded.MCP.Budget * float64(numCtx))
	_, err := fmt.Fprintf(w, "MCP tools take ~%s tokens; their budget is %s (%.0f%% of options.num_ctx %s): %s\n",
		human.Thousands(total), human.Thousands(budget), loaded.MCP.Budget*100, human.Thousands(numCtx), mcp.Offered(total > budget))
	return err
}

// padRunes pads s with blanks to n characters.
func padRunes(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}

// mcpServerJSON is a server as lathe mcp list --json prints it.
type mcpServerJSON struct {
	Name      string        `json:"name"`
	Transport string        `json:"transport"`
	Target    string        `json:"target"`
	State     string        `json:"state"`
	Error     string        `json:"error,omitempty"`
	Project   bool          `json:"project"`
	Approve   string        `json:"approve"`
	Tokens    int           `json:"tokens"`
	Tools     []mcpToolJSON `json:"tools"`
	// LeftOut are the server's tools not offered: they require MCP tasks.
	LeftOut []string `json:"left_out,omitempty"`
	// Prompts are its prompts as slash commands; Resources its
	// resources as mentions.
	Prompts   []string `json:"prompts,omitempty"`
	Resources []string `json:"resources,omitempty"`
}

type mcpToolJSON struct {
	Name        string `json:"name"`
	Tool        string `json:"tool"`
	Description string `json:"description"`
	ReadOnly    bool   `json:"read_only"`
}

func writeMCPJSON(w io.Writer, list []mcp.Status, servers map[string]config.MCPServer) error {
	out := make([]mcpServerJSON, 0, len(list))
	for _, s := range list {
		j := mcpServerJSON{Name: s.Name, Transport: s.Transport, Target: s.Target, State: string(s.State), Project: s.Project,
			Approve: "ask", Tokens: s.Tokens, Tools: []mcpToolJSON{}, LeftOut: s.LeftOut}
		if servers[s.Name].Approve == "always" {
			j.Approve = "always"
		}
		if s.State != mcp.StateReady {
			j.Error = s.Why
		}
		for _, t := range s.Tools {
			j.Tools = append(j.Tools, mcpToolJSON{t.Name, t.Tool, t.Description, t.ReadOnly})
		}
		for _, p := range s.Prompts {
			j.Prompts = append(j.Prompts, p.Command())
		}
		for _, r := range s.Resources {
			j.Resources = append(j.Resources, r.Mention())
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
