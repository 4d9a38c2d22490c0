package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"lathe/orchestrator/eval"
	"lathe/prompts/human"
)

// evalValidate is lathe eval validate DIR: each task's check run on its
// reference solution and on its untouched starting files.
type evalValidate struct {
	f    *Factory
	dir  []string
	json bool
}

func newEvalValidate(f *Factory) command { return &evalValidate{f: f} }

func (c *evalValidate) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
}

func (c *evalValidate) words(args []string) error {
	c.dir = args
	if len(args) != 1 {
		return usagef("eval validate: give one directory of tasks, e.g. lathe eval validate ./tasks")
	}
	return nil
}

func (c *evalValidate) check(*pflag.FlagSet) error { return nil }

// notSeparated is lathe eval validate's error when some task's check does
// not tell its reference solution from its starting files.
type notSeparated struct{ tasks []string }

func (e notSeparated) Error() string {
	return fmt.Sprintf("eval validate: the check of %s does not tell the reference solution from the starting "+
		"files: %s", human.Plural(len(e.tasks), "task"), strings.Join(e.tasks, ", "))
}

func (c *evalValidate) run(ctx context.Context) error {
	f := c.f
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	suite, err := eval.LoadSuite(c.dir[0])
	if err != nil {
		return usageError{err.Error()}
	}
	r, err := runner(f, loaded.Config, nil)
	if err != nil {
		return err
	}
	found := r.Validate(ctx, suite)
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.json {
		enc := json.NewEncoder(f.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(found); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(f.Out, 0, 0, 2, ' ', 0)
		for _, v := range found {
			fmt.Fprintf(tw, "%s\t%s\n", human.Visible(v.Task), human.Visible(v.Verdict()))
		}
		tw.Flush()
	}
	var bad []string
	for _, v := range found {
		if v.Skipped == "" && !v.Separates {
			bad = append(bad, v.Task)
		}
	}
	if len(bad) > 0 {
		return notSeparated{bad}
	}
	return nil
}
