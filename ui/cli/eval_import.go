package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"lathe/orchestrator/eval"
)

// evalImport is lathe eval import JOBDIR: a Harbor job's trials recorded
// as an experiment, for lathe eval show and compare.
type evalImport struct {
	f   *Factory
	dir []string
}

func newEvalImport(f *Factory) command { return &evalImport{f: f} }

func (c *evalImport) define(fs *pflag.FlagSet) { c.f.dirFlag(fs) }

func (c *evalImport) words(args []string) error {
	c.dir = args
	if len(args) != 1 {
		return usagef("eval import: give one Harbor job directory, e.g. lathe eval import jobs/2026-05-02__10-00-00")
	}
	return nil
}

func (c *evalImport) check(*pflag.FlagSet) error { return nil }

func (c *evalImport) run(ctx context.Context) error {
	f := c.f
	if info, err := os.Stat(c.dir[0]); err != nil || !info.IsDir() {
		return usagef("eval import: %s: no such directory", c.dir[0])
	}
	db, err := f.Store(ctx)
	if err != nil {
		return err
	}
	id, err := eval.ImportHarbor(ctx, db, c.dir[0], time.Now())
	if err != nil {
		if id == 0 && !errors.Is(err, context.Canceled) {
			return usageError{"eval import: " + err.Error()}
		}
		return err
	}
	fmt.Fprintf(f.ErrOut, "lathe: imported as experiment %d (lathe eval show %d)\n", id, id)
	e, err := db.Experiment(ctx, id)
	if err != nil {
		return err
	}
	return eval.Show(f.Out, e, time.Now())
}
