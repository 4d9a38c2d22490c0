package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"lathe/config"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/prompts"
	"lathe/prompts/human"
	"lathe/ui/print"
)

// storePath is the session database in the data directory.
func storePath(getenv func(string) string) (string, error) {
	dir := config.DataDir(getenv)
	if dir == "" {
		return "", errors.New("no data directory: set XDG_DATA_HOME or HOME")
	}
	return filepath.Join(dir, "lathe.db"), nil
}

// storeOptions are the session database's: lathe's notes are told apart
// from what the user wrote.
func storeOptions() sqlite.Options { return sqlite.Options{NotePrefix: prompts.NotePrefix} }

// openSaved opens the session database when there is one: nil (and no
// error) when no session was ever saved, so that looking creates nothing.
func openSaved(ctx context.Context, getenv func(string) string) (*sqlite.DB, error) {
	path, err := storePath(getenv)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return sqlite.Open(ctx, path, storeOptions())
}

// sessions runs lathe sessions and its subcommands.
func (cmd command) sessions(ctx context.Context, stdout, stderr io.Writer) error {
	db, err := openSaved(ctx, cmd.env.get)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	if db != nil {
		defer db.Close()
	}
	switch cmd.sub {
	case "sessions rm":
		return cmd.removeSessions(ctx, db, stdout)
	case "sessions prune":
		return cmd.pruneSessions(ctx, db, stdout)
	}
	return cmd.listSessions(ctx, db, stdout, stderr)
}

// scope is the directory the sessions subcommands look at: the working
// directory, or "" (every directory) with --all.
func (cmd command) scope() string {
	if cmd.all {
		return ""
	}
	return cmd.dir
}

// listSessions prints the saved sessions of the working directory (of
// every directory with --all), newest first, as a table or as JSON.
func (cmd command) listSessions(ctx context.Context, db *sqlite.DB, stdout, stderr io.Writer) error {
	var list []session.Summary
	if db != nil {
		var err error
		if list, err = db.List(ctx, cmd.scope()); err != nil {
			return fmt.Errorf("sessions: %w", err)
		}
	}
	switch {
	case cmd.json:
		return print.SessionsJSON(stdout, list)
	case len(list) > 0:
		return print.Sessions(stdout, list, time.Now(), cmd.all)
	case cmd.all:
		fmt.Fprintln(stderr, "lathe: no saved session")
	default:
		fmt.Fprintf(stderr, "lathe: no saved session in %s\n", cmd.dir)
	}
	return nil
}

// removeSessions removes the sessions named by id or prefix: every one
// is found first, so that a mistyped id removes nothing. A session
// another lathe uses is not removed.
func (cmd command) removeSessions(ctx context.Context, db *sqlite.DB, stdout io.Writer) error {
	var ids []string
	for _, arg := range cmd.ids {
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
		fmt.Fprintf(stdout, "removed %s  %s\n", id, titles[id])
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

// pruneSessions removes the sessions of the working directory (of every
// directory with --all) last updated longer ago than --older-than, but
// those another lathe uses; with --dry-run it lists them instead.
func (cmd command) pruneSessions(ctx context.Context, db *sqlite.DB, stdout io.Writer) error {
	now := time.Now()
	before := now.Add(-cmd.olderThan)
	if cmd.dryRun {
		var old []session.Summary
		if db != nil {
			list, err := db.List(ctx, cmd.scope())
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
			if err := print.Sessions(stdout, old, now, cmd.all); err != nil {
				return err
			}
		}
		_, err := fmt.Fprintf(stdout, "%s would be removed\n", human.Plural(len(old), "session"))
		return err
	}
	n := 0
	if db != nil {
		var err error
		if n, err = db.Prune(ctx, cmd.scope(), before); err != nil {
			return fmt.Errorf("sessions prune: %w", err)
		}
	}
	_, err := fmt.Fprintf(stdout, "removed %s\n", human.Plural(n, "session"))
	return err
}
