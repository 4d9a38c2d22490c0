package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"lathe/orchestrator"
	"lathe/orchestrator/engine"
	"lathe/prompts/human"
)

// contextCommand is lathe context: how the context window of a session
// (--continue, --resume ID) or of a new one is used, part by part.
type contextCommand struct {
	f      *Factory
	resume resumeFlags
}

func newContext(f *Factory) command { return &contextCommand{f: f} }

func (c *contextCommand) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	c.resume.define(fs)
	fs.StringVarP(&c.f.Flags.Model, "model", "m", "", "")
	fs.StringVar(&c.f.Flags.Provider, "provider", "", "")
	fs.StringVar(&c.f.Flags.BaseURL, "base-url", "", "")
}

func (c *contextCommand) words(args []string) error     { return noWords("context", args) }
func (c *contextCommand) check(fs *pflag.FlagSet) error { return c.resume.check(fs) }

func (c *contextCommand) run(ctx context.Context) error {
	f := c.f
	r, err := c.resume.session(ctx, f, false)
	if err != nil {
		return err
	}
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	st := storeFor(ctx, f, r, true) // opened only to save, which looking never does
	defer st.close()
	e, err := engine.New(ctx, loaded, engine.Env{
		Dir: f.Dir, Environ: f.Env.list, Getenv: f.Env.get, Store: st.store, StoreErr: st.err,
		Saved: r.saved(), ModelSet: f.Flags.Model != "", Headless: true, Version: buildVersion(), Log: zerolog.Nop(),
	})
	if err != nil {
		return workspaceUsage(err)
	}
	defer e.Close()
	opts := e.Options
	opts.Recorder, opts.Checkpoints = nil, nil // looking changes nothing
	saved := r.saved()
	s := orchestrator.New(opts)
	if saved != nil {
		_ = s.ResumeFrom(*saved) // a new session is idle
	}
	if _, err := s.Prepare(ctx); err != nil {
		return err
	}
	u := s.Context()
	what := "a new session"
	if saved != nil {
		what = "session " + saved.ID
	}
	fmt.Fprintf(f.Out, "The context window of %s: %s tokens of %s\n", what, human.Thousands(u.NumCtx), s.Snapshot().Model.Name)
	tw := tabwriter.NewWriter(f.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, p := range u.Parts() {
		mark := ""
		if p.Estimated {
			mark = "~"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d%%\t\n", p.Name, mark+human.Thousands(p.Tokens), p.Tokens*100/max(u.NumCtx, 1))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(f.Out, "(~ estimated from the bytes at the density the server's counts show; the rest counted by the server)")
	return err
}
