package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/session"
	"lathe/prompts/human"
)

// undo runs lathe undo: it takes back the file changes of a session's last
// run (the latest session of the directory, or --session ID), and its
// exchange from the conversation; --list lists the runs instead.
func (cmd command) undo(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	db, err := openSaved(ctx, cmd.env.get)
	if err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	if db == nil {
		return usagef("undo: no session was ever saved")
	}
	defer db.Close()
	var id string
	if cmd.session != "" {
		id, err = findSession(ctx, db, cmd.session)
	} else {
		id, err = latestSession(ctx, db, cmd.dir)
	}
	if err != nil {
		return err
	}
	saved, err := db.Load(ctx, id)
	if err != nil {
		return err
	}
	loaded, err := config.Load(config.Sources{Getenv: cmd.env.get, ProjectDir: saved.Dir, Flags: cmd.flags})
	if err != nil {
		return err
	}
	tracker, err := checkpoint.New(db, saved.Dir, trackerOptions(loaded.Undo, zerolog.Nop()))
	if err != nil {
		return fmt.Errorf("undo: the session's directory: %w", err)
	}
	defer tracker.Close()
	cps, err := db.Checkpoints(ctx, id)
	if err != nil {
		return err
	}
	if cmd.list {
		return listCheckpoints(stdout, saved, cps)
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
	fmt.Fprintf(stdout, "Undo the last request of session %s: %q\n", id, promptAt(saved, last.Seq))
	printPlan(stdout, plan, cmd.force)
	if !cmd.flags.Yes {
		if !isTerminal(stdin) {
			return usagef("undo asks first, and cannot here: pass --yes to undo without asking")
		}
		fmt.Fprint(stdout, "Undo it? [y/N] ")
		answer, _ := bufio.NewReader(stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "Nothing undone.")
			return nil
		}
	}
	out, err := tracker.Apply(ctx, plan, cmd.force)
	for _, a := range out.Done {
		fmt.Fprintf(stdout, "%s %s\n", a.Do.Done(), a.Path)
	}
	for _, a := range out.Refused {
		fmt.Fprintf(stderr, "lathe: left %s: %s\n", a.Path, a.Why)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "The request and its answer are taken back from the conversation.")
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
			fmt.Fprintf(w, "  %s: already as before\n", a.Path)
		case a.Conflict:
			what, would := "left alone (--force overwrites it)", "would do"
			if force {
				what, would = "--force overwrites it", "does"
			}
			fmt.Fprintf(w, "  %s: %s, %s:\n", a.Path, a.Why, what)
			fmt.Fprintf(w, "    changed since lathe left it:\n%s", indentLines(a.Since, "      "))
			fmt.Fprintf(w, "    what --force %s:\n%s", would, indentLines(a.Diff, "      "))
		case a.Do == checkpoint.Refuse:
			fmt.Fprintf(w, "  %s: %s\n", a.Path, a.Why)
		default:
			fmt.Fprintf(w, "  %s %s\n", a.Do, a.Path)
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
// each changed.
func listCheckpoints(w io.Writer, saved session.Saved, cps []session.Checkpoint) error {
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
		fmt.Fprintf(w, "%3d  %s  %-24s  %s%s\n", i+1, c.Created.Local().Format(time.DateTime), files,
			human.Line(promptAt(saved, c.Seq), 60), state)
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
