package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/prompts/human"
)

// contextUse runs lathe context: how the context window of a session
// (--continue, --resume ID) or of a new one is used, part by part.
func (cmd command) contextUse(ctx context.Context, stdout, stderr io.Writer) error {
	r, err := cmd.resumeSession(ctx)
	if err != nil {
		return err
	}
	if r != nil {
		defer r.db.Close()
	}
	loaded, err := config.Load(config.Sources{Getenv: cmd.env.get, ProjectDir: cmd.dir, Flags: cmd.flags})
	if err != nil {
		return err
	}
	cmd.oneShot = true // a store opened only to save, which looking never does
	e, err := cmd.wire(ctx, loaded, r, zerolog.Nop())
	if err != nil {
		return err
	}
	defer e.close()
	e.opts.Recorder, e.opts.Checkpoints = nil, nil // looking changes nothing
	s := orchestrator.New(e.opts)
	if e.saved != nil {
		_ = s.ResumeFrom(*e.saved) // a new session is idle
	}
	if _, err := s.Prepare(ctx); err != nil {
		return err
	}
	u := s.Context()
	what := "a new session"
	if e.saved != nil {
		what = "session " + e.saved.ID
	}
	fmt.Fprintf(stdout, "The context window of %s: %s tokens of %s\n", what, human.Thousands(u.NumCtx), s.Snapshot().Model.Name)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
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
	_, err = fmt.Fprintln(stdout, "(~ estimated from the bytes at the density the server's counts show; the rest counted by the server)")
	return err
}
