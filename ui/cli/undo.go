package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"lathe/orchestrator"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/session"
	"lathe/prompts/human"
)

// undoCommand is lathe undo: it takes back the file changes of a
// session's last run (the latest session of the directory, or --session
// ID), and its exchange from the conversation; --list lists the runs
// instead.
type undoCommand struct {
	f       *Factory
	cont    bool   // --continue: the latest session, as the default is
	session string // --session ID
	list    bool
	force   bool
}

func newUndo(f *Factory) command { return &undoCommand{f: f} }

func (c *undoCommand) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.cont, "continue", false, "")
	fs.StringVar(&c.session, "session", "", "")
	fs.BoolVar(&c.list, "list", false, "")
	fs.BoolVar(&c.f.Flags.Yes, "yes", false, "")
	fs.BoolVar(&c.force, "force", false, "")
}

func (c *undoCommand) words(args []string) error { return noWords("undo", args) }

func (c *undoCommand) check(*pflag.FlagSet) error {
	if c.cont && c.session != "" {
		return usagef("undo: --continue and --session cannot go together")
	}
	return nil
}

func (c *undoCommand) run(ctx context.Context) error {
	f := c.f
	db, err := f.Saved(ctx)
	if err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	if db == nil {
		return usagef("undo: no session was ever saved")
	}
	var id string
	if c.session != "" {
		id, err = findSession(ctx, db, c.session)
	} else {
		id, err = latestSession(ctx, db, f.Dir)
	}
	if err != nil {
		return err
	}
	saved, err := db.Load(ctx, id)
	if err != nil {
		return err
	}
	f.Dir = saved.Dir // the session's config, where its files are
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	tracker, err := checkpoint.New(db, saved.Dir, engine.TrackerOptions(loaded.Undo, zerolog.Nop()))
	if err != nil {
		return fmt.Errorf("undo: the session's directory: %w", err)
	}
	defer tracker.Close()
	cps, err := db.Checkpoints(ctx, id)
	if err != nil {
		return err
	}
	if c.list {
		return listCheckpoints(f.Out, saved, cps, func(seq int) string {
			p, _ := db.UndonePrompt(ctx, id, seq) // without it, the row says "(undone)" alone
			return p
		})
	}
	last, _ := checkpoint.Last(cps)
	if last == nil {
		return &stopped{reason: orchestrator.StopError, msg: fmt.Sprintf("nothing to undo in session %s (%s)", id, saved.Title)}
	}
	if err := db.Claim(ctx, id); err != nil { // no lathe may go on with it meanwhile
		return err
	}
	plan, err := tracker.PlanUndo(ctx, *last)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "Undo the last request of session %s: %q\n", id, promptAt(saved, last.Seq))
	printPlan(f.Out, plan, c.force)
	if !f.Flags.Yes {
		if !isTerminal(f.In) && len(plan.Actions) == 0 {
			return usagef("undo asks first, and cannot here: pass --yes to take the request and its answer back " +
				"from the conversation (no file to restore)")
		}
		if !isTerminal(f.In) {
			return usagef("undo asks first, and cannot here: pass --yes to undo without asking")
		}
		fmt.Fprint(f.Out, "Undo it? [y/N] ")
		answer, _ := bufio.NewReader(f.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(f.Out, "Nothing undone.")
			return nil
		}
	}
	out, err := tracker.Apply(ctx, plan, c.force)
	for _, a := range out.Done {
		fmt.Fprintf(f.Out, "%s %s\n", a.Do.Done(), human.Visible(a.Path))
	}
	for _, a := range out.Refused {
		fmt.Fprintf(f.ErrOut, "lathe: left %s: %s\n", human.Visible(a.Path), human.Visible(a.Why))
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(f.Out, "The request and its answer are taken back from the conversation.")
	return nil
}

// printPlan says what undoing will do to each file; for a file changed
// since the run, it shows the three versions as two diffs: what changed
// since lathe left it, and what --force makes of it now.
func printPlan(w io.Writer, p checkpoint.Plan, force bool) {
	if len(p.Actions) == 0 {
		fmt.Fprintln(w, "It changed no files.")
	}
	for _, a := range p.Actions {
		switch {
		case a.Do == checkpoint.Keep:
			fmt.Fprintf(w, "  %s: already as before\n", human.Visible(a.Path))
		case a.Conflict:
			what, would := "left alone (--force overwrites it)", "would do"
			if force {
				what, would = "--force overwrites it", "does"
			}
			fmt.Fprintf(w, "  %s: %s, %s:\n", human.Visible(a.Path), a.Why, what)
			fmt.Fprintf(w, "    changed since lathe left it:\n%s", indentLines(a.Since, "      "))
			fmt.Fprintf(w, "    what --force %s:\n%s", would, indentLines(a.Diff, "      "))
		case a.Do == checkpoint.Refuse:
			fmt.Fprintf(w, "  %s: %s\n", human.Visible(a.Path), a.Why)
		default:
			fmt.Fprintf(w, "  %s %s\n", a.Do, human.Visible(a.Path))
		}
	}
}

func indentLines(s, indent string) string {
	if s == "" {
		return ""
	}
	return indent + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+indent) + "\n"
}

// listCheckpoints prints the runs of a session, oldest first, with what
// each changed and its prompt; undone reads the prompt of a run undone,
// which the history no longer holds.
func listCheckpoints(w io.Writer, saved session.Saved, cps []session.Checkpoint, undone func(seq int) string) error {
	if len(cps) == 0 {
		_, err := fmt.Fprintf(w, "session %s has no runs to undo\n", saved.ID)
		return err
	}
	fmt.Fprintf(w, "Runs of session %s (%s), oldest first:\n", saved.ID, saved.Title)
	for i, c := range cps {
		state := ""
		if !c.Undone.IsZero() {
			state = " (undone)"
		}
		lost := 0
		for _, f := range c.Files {
			if f.Problem != "" {
				lost++
			}
		}
		files := human.Plural(len(c.Files), "file")
		if lost > 0 {
			files += fmt.Sprintf(", %d not restorable", lost)
		}
		prompt := promptAt(saved, c.Seq)
		if prompt == "" && !c.Undone.IsZero() {
			prompt = undone(c.Seq)
		}
		fmt.Fprintf(w, "%3d  %s  %-24s  %s%s\n", i+1, c.Created.Local().Format(time.DateTime), files,
			human.Line(prompt, 60), state)
	}
	return nil
}

// promptAt is the prompt at seq of a saved history; "" when it is not in
// it (undone).
func promptAt(saved session.Saved, seq int) string {
	for _, m := range saved.Messages {
		if m.Seq == seq && m.Message.Role == "user" {
			return m.Message.Content
		}
	}
	return ""
}
