package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"lathe/orchestrator/engine"
	"lathe/orchestrator/hooks"
	"lathe/prompts/human"
)

// hooksList is lathe hooks list: every configured hook, with the file it
// comes from; the project's marked when they wait for the user's trust.
type hooksList struct {
	f    *Factory
	json bool
}

func newHooksList(f *Factory) command { return &hooksList{f: f} }

func (c *hooksList) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
}

func (c *hooksList) words(args []string) error  { return noWords("hooks list", args) }
func (c *hooksList) check(*pflag.FlagSet) error { return nil }

func (c *hooksList) run(context.Context) error {
	f := c.f
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	for _, w := range loaded.Warnings {
		f.warn(w)
	}
	r, warning := engine.NewHooks(loaded, engine.HooksEnv{Dir: f.Dir, Environ: f.Env.list, Getenv: f.Env.get, Log: zerolog.Nop()})
	if warning != "" {
		f.warn(warning)
	}
	var list, untrusted []hooks.Hook
	reason := func(hooks.Hook) string { return "" }
	if r != nil {
		list, untrusted, reason = r.Hooks(), r.Untrusted(), r.TrustReason
	}
	if c.json {
		return writeHooksJSON(f.Out, list, untrusted)
	}
	return writeHooksText(f.Out, list, untrusted, reason, f.Dir, f.Env.get("HOME"))
}

// writeHooksText prints the hooks as a table, event by event; those that
// wait for trust marked, the user's own with why (reason).
func writeHooksText(w io.Writer, list, untrusted []hooks.Hook, reason func(hooks.Hook) string, dir, home string) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No hook is configured: add one as [[hooks.EVENT]] in your config, or in the project's "+
			".claude/settings.json (see the README's Hooks section).")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tMATCHER\tCOMMAND\tTIMEOUT\tFROM")
	for _, h := range list {
		matcher := h.Matcher
		if matcher == "" {
			matcher = "*"
		}
		from := human.Path(h.Source, dir, home)
		waits := slices.Contains(untrusted, h)
		switch {
		case h.Project && waits:
			from += " (project: not trusted, does not run)"
		case h.Project:
			from += " (project: trusted)"
		case waits:
			from += " (not trusted, does not run: " + reason(h) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", h.Event, human.Visible(matcher), human.Line(human.Visible(h.Command), 60),
			hookTimeout(h), from)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case slices.ContainsFunc(untrusted, func(h hooks.Hook) bool { return h.Project }):
		_, err := fmt.Fprintln(w, "The project's hooks run outside the sandbox, so they run only once you trust them: "+
			"lathe asks when the UI starts; --trust-project-hooks runs them for one run of lathe -p.")
		return err
	case len(untrusted) > 0:
		_, err := fmt.Fprintln(w, "Hooks that run files of the project run outside the sandbox, so they run only once you trust them: "+
			"lathe asks when the UI starts; --trust-project-hooks runs them for one run of lathe -p.")
		return err
	}
	return nil
}

func hookTimeout(h hooks.Hook) string {
	if h.Timeout > 0 {
		return h.Timeout.String()
	}
	return hooks.DefaultTimeout.String()
}

// hookJSON is a hook as lathe hooks list --json prints it.
type hookJSON struct {
	Event          string `json:"event"`
	Matcher        string `json:"matcher"`
	Command        string `json:"command"`
	TimeoutSeconds int    `json:"timeout_seconds"`
	Source         string `json:"source"`
	Project        bool   `json:"project"`
	Runs           bool   `json:"runs"` // false: a hook that waits for trust
}

func writeHooksJSON(w io.Writer, list, untrusted []hooks.Hook) error {
	out := make([]hookJSON, 0, len(list))
	for _, h := range list {
		t := h.Timeout
		if t == 0 {
			t = hooks.DefaultTimeout
		}
		out = append(out, hookJSON{Event: h.Event, Matcher: h.Matcher, Command: h.Command, TimeoutSeconds: int(t.Seconds()),
			Source: h.Source, Project: h.Project, Runs: !slices.Contains(untrusted, h)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
