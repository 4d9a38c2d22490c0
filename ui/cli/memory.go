package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"lathe/orchestrator/session"
	"lathe/ui/print"
)

// memoryList is lathe memory list: the facts remembered about the
// working directory (about every one with --all).
type memoryList struct {
	scope
	json bool
}

func newMemoryList(f *Factory) command { return &memoryList{scope: scope{f: f}} }

func (c *memoryList) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
	c.scope.define(fs)
}

func (c *memoryList) words(args []string) error { return noWords("memory list", args) }

func (c *memoryList) check(*pflag.FlagSet) error { return nil }

func (c *memoryList) run(ctx context.Context) error {
	db, err := c.f.Saved(ctx)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	var facts []session.Fact
	if db != nil {
		if facts, err = db.Facts(ctx, c.dir()); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	switch {
	case c.json:
		return print.FactsJSON(c.f.Out, facts)
	case len(facts) > 0:
		return print.Facts(c.f.Out, facts, c.all)
	case c.all:
		fmt.Fprintln(c.f.ErrOut, "lathe: no fact is remembered")
	default:
		fmt.Fprintf(c.f.ErrOut, "lathe: no fact is remembered about %s\n", c.f.Dir)
	}
	return nil
}

// memoryRm is lathe memory rm: it forgets the facts of the working
// directory named by id. Every id is checked first, so that a mistyped
// one removes nothing.
type memoryRm struct {
	f   *Factory
	ids []string
}

func newMemoryRm(f *Factory) command { return &memoryRm{f: f} }

func (c *memoryRm) define(fs *pflag.FlagSet) { c.f.dirFlag(fs) }

func (c *memoryRm) words(args []string) error {
	if len(args) == 0 {
		return usagef("memory rm: give the id of the fact to forget (lathe memory list shows them)")
	}
	c.ids = args
	return nil
}

func (c *memoryRm) check(*pflag.FlagSet) error { return nil }

func (c *memoryRm) run(ctx context.Context) error {
	db, err := c.f.Saved(ctx)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	var facts []session.Fact
	if db != nil {
		if facts, err = db.Facts(ctx, c.f.Dir); err != nil {
			return fmt.Errorf("memory rm: %w", err)
		}
	}
	byID := map[int64]session.Fact{}
	for _, f := range facts {
		byID[f.ID] = f
	}
	var ids []int64
	for _, arg := range c.ids {
		id, err := strconv.ParseInt(arg, 10, 64)
		if _, ok := byID[id]; err != nil || !ok {
			return usagef("no fact %q about %s (lathe memory list shows them)", arg, c.f.Dir)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		if err := db.DeleteFact(ctx, c.f.Dir, id); err != nil && !errors.Is(err, session.ErrFactNotFound) {
			return fmt.Errorf("memory rm: %w", err)
		}
		fmt.Fprintf(c.f.Out, "forgot %d  %s\n", id, byID[id].Text)
	}
	return nil
}
