package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/prompts/human"
	"lathe/ui/print"
)

// scope is the directory the sessions and memory commands look at: the
// working directory, or "" (every directory) with --all.
type scope struct {
	f   *Factory
	all bool
}

func (s *scope) define(fs *pflag.FlagSet) { fs.BoolVar(&s.all, "all", false, "") }

func (s *scope) dir() string {
	if s.all {
		return ""
	}
	return s.f.Dir
}

// sessionsList is lathe sessions: the saved sessions of the working
// directory (of every directory with --all), newest first, as a table or
// as JSON.
type sessionsList struct {
	scope
	json bool
}

func newSessionsList(f *Factory) command { return &sessionsList{scope: scope{f: f}} }

func (c *sessionsList) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
	c.scope.define(fs)
}

func (c *sessionsList) words(args []string) error {
	if len(args) > 0 {
		return usagef("sessions: unexpected argument %q (the subcommands of sessions are rm, prune and search)", args[0])
	}
	return nil
}

func (c *sessionsList) check(*pflag.FlagSet) error { return nil }

func (c *sessionsList) run(ctx context.Context) error {
	db, err := c.f.Saved(ctx)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	var list []session.Summary
	if db != nil {
		if list, err = db.List(ctx, c.dir()); err != nil {
			return fmt.Errorf("sessions: %w", err)
		}
	}
	switch {
	case c.json:
		return print.SessionsJSON(c.f.Out, list)
	case len(list) > 0:
		return print.Sessions(c.f.Out, list, time.Now(), c.all)
	case c.all:
		fmt.Fprintln(c.f.ErrOut, "lathe: no saved session")
	default:
		fmt.Fprintf(c.f.ErrOut, "lathe: no saved session in %s\n", c.f.Dir)
	}
	return nil
}

// sessionsRm is lathe sessions rm: it removes the sessions named by id
// or prefix. Every one is found first, so that a mistyped id removes
// nothing; a session another lathe uses is not removed.
type sessionsRm struct {
	f   *Factory
	ids []string
}

func newSessionsRm(f *Factory) command { return &sessionsRm{f: f} }

func (c *sessionsRm) define(fs *pflag.FlagSet) { c.f.dirFlag(fs) }

func (c *sessionsRm) words(args []string) error {
	if len(args) == 0 {
		return usagef("sessions rm: give the id of the session to remove (lathe sessions lists them)")
	}
	c.ids = args
	return nil
}

func (c *sessionsRm) check(*pflag.FlagSet) error { return nil }

func (c *sessionsRm) run(ctx context.Context) error {
	db, err := c.f.Saved(ctx)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	var ids []string
	for _, arg := range c.ids {
		id, err := findSession(ctx, db, arg)
		if err != nil {
			return err
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	titles := map[string]string{}
	if list, err := db.List(ctx, ""); err == nil {
		for _, s := range list {
			titles[s.ID] = s.Title
		}
	}
	var errs []error
	for _, id := range ids {
		if err := db.Delete(ctx, id); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(c.f.Out, "removed %s  %s\n", id, titles[id])
	}
	return errors.Join(errs...)
}

// findSession resolves an id or a prefix of one; an id that names no
// session, or several, is a usage error.
func findSession(ctx context.Context, db *sqlite.DB, prefix string) (string, error) {
	if db == nil {
		return "", usagef("no session %q (lathe sessions lists them)", prefix)
	}
	id, err := db.Find(ctx, prefix)
	switch {
	case errors.Is(err, session.ErrNotFound):
		return "", usagef("no session %q (lathe sessions lists them)", prefix)
	case errors.Is(err, session.ErrAmbiguousID):
		return "", usagef("%q starts several session ids: give more of it", prefix)
	}
	return id, err
}

// sessionsPrune is lathe sessions prune: it removes the sessions of the
// working directory (of every directory with --all) last updated longer
// ago than --older-than, but those another lathe uses; with --dry-run it
// lists them instead.
type sessionsPrune struct {
	scope
	olderThan string
	age       time.Duration
	dryRun    bool
}

func newSessionsPrune(f *Factory) command { return &sessionsPrune{scope: scope{f: f}} }

func (c *sessionsPrune) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.StringVar(&c.olderThan, "older-than", "", "")
	c.scope.define(fs)
	fs.BoolVar(&c.dryRun, "dry-run", false, "")
}

func (c *sessionsPrune) words(args []string) error {
	if len(args) > 0 {
		return usagef("sessions prune: unexpected argument %q (the age goes with --older-than)", args[0])
	}
	return nil
}

func (c *sessionsPrune) check(fs *pflag.FlagSet) error {
	if !fs.Changed("older-than") {
		return usagef("sessions prune: say which sessions with --older-than, for example --older-than 30d")
	}
	age, err := parseAge(c.olderThan)
	if err != nil {
		return usagef("--older-than: %q is not an age: use days, hours or minutes, such as 30d, 12h or 90m", c.olderThan)
	}
	c.age = age
	return nil
}

func (c *sessionsPrune) run(ctx context.Context) error {
	db, err := c.f.Saved(ctx)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	now := time.Now()
	before := now.Add(-c.age)
	if c.dryRun {
		var old []session.Summary
		if db != nil {
			list, err := db.List(ctx, c.dir())
			if err != nil {
				return fmt.Errorf("sessions prune: %w", err)
			}
			for _, s := range list {
				if s.Updated.Before(before) {
					old = append(old, s)
				}
			}
		}
		if len(old) > 0 {
			if err := print.Sessions(c.f.Out, old, now, c.all); err != nil {
				return err
			}
		}
		_, err := fmt.Fprintf(c.f.Out, "%s would be removed\n", human.Plural(len(old), "session"))
		return err
	}
	n := 0
	if db != nil {
		if n, err = db.Prune(ctx, c.dir(), before); err != nil {
			return fmt.Errorf("sessions prune: %w", err)
		}
	}
	_, err = fmt.Fprintf(c.f.Out, "removed %s\n", human.Plural(n, "session"))
	return err
}

// sessionsSearch is lathe sessions search: the saved messages of the
// directory's sessions (of every one with --all) holding the words, best
// first.
type sessionsSearch struct {
	scope
	query string
	json  bool
}

func newSessionsSearch(f *Factory) command { return &sessionsSearch{scope: scope{f: f}} }

func (c *sessionsSearch) define(fs *pflag.FlagSet) {
	c.f.dirFlag(fs)
	fs.BoolVar(&c.json, "json", false, "")
	c.scope.define(fs)
}

func (c *sessionsSearch) words(args []string) error {
	c.query = strings.TrimSpace(strings.Join(args, " "))
	if c.query == "" {
		return usagef("sessions search: give the words to look for")
	}
	return nil
}

func (c *sessionsSearch) check(*pflag.FlagSet) error { return nil }

func (c *sessionsSearch) run(ctx context.Context) error {
	db, err := c.f.Saved(ctx)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	var hits []session.Hit
	if db != nil {
		hits, err = db.Search(ctx, session.SearchQuery{Text: c.query, Dir: c.dir(), Limit: 50})
		if errors.Is(err, session.ErrNoWords) {
			return usagef("sessions search: %q has no words to look for", c.query)
		}
		if err != nil {
			return fmt.Errorf("sessions search: %w", err)
		}
	}
	switch {
	case c.json:
		return print.HitsJSON(c.f.Out, hits)
	case len(hits) > 0:
		return print.Hits(c.f.Out, hits, time.Now(), c.all)
	}
	fmt.Fprintf(c.f.ErrOut, "lathe: no saved message holds %q\n", c.query)
	return nil
}
