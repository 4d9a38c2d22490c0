package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"lathe/config"
	"lathe/print"
	"lathe/session"
	"lathe/session/sqlite"
)

// openStore opens the session database in the data directory.
func openStore(getenv func(string) string) (*sqlite.DB, error) {
	dir := config.DataDir(getenv)
	if dir == "" {
		return nil, errors.New("no data directory: set XDG_DATA_HOME or HOME")
	}
	return sqlite.Open(filepath.Join(dir, "lathe.db"))
}

// listSessions prints the saved sessions of the working directory, newest
// first.
func (cmd command) listSessions(ctx context.Context, stdout, stderr io.Writer) error {
	db, err := openStore(cmd.env.get)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	defer db.Close()
	list, err := db.List(ctx, cmd.dir)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "lathe: no saved session in %s\n", cmd.dir)
		return nil
	}
	return print.Sessions(stdout, list, time.Now())
}

// savedSession loads the session --continue or --resume asks for; nil
// when neither was given. A session that does not exist is a usage error;
// a database that fails is not.
func (cmd command) savedSession(ctx context.Context, db *sqlite.DB) (*session.Saved, error) {
	if !cmd.cont && cmd.resume == "" {
		return nil, nil
	}
	var id string
	var err error
	if cmd.cont {
		id, err = db.Latest(ctx, cmd.dir)
		if errors.Is(err, session.ErrNotFound) {
			return nil, usagef("no session to continue in %s", cmd.dir)
		}
	} else {
		id, err = db.Find(ctx, cmd.resume)
		switch {
		case errors.Is(err, session.ErrNotFound):
			return nil, usagef("no session %q (lathe sessions lists them)", cmd.resume)
		case errors.Is(err, session.ErrAmbiguousID):
			return nil, usagef("%q starts several session ids: give more of it", cmd.resume)
		}
	}
	if err != nil {
		return nil, err
	}
	saved, err := db.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	return &saved, nil
}
