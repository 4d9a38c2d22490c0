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
func listSessions(ctx context.Context, cmd command, getenv func(string) string, stdout, stderr io.Writer) int {
	db, err := openStore(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "lathe: sessions: %v\n", err)
		return exitFailure
	}
	defer db.Close()
	list, err := db.List(ctx, cmd.dir)
	if err != nil {
		fmt.Fprintf(stderr, "lathe: sessions: %v\n", err)
		return exitFailure
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "lathe: no saved session in %s\n", cmd.dir)
		return exitOK
	}
	if err := print.Sessions(stdout, list, time.Now()); err != nil {
		fmt.Fprintf(stderr, "lathe: sessions: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// savedSession loads the session --continue or --resume asks for; nil
// when neither was given.
func savedSession(ctx context.Context, cmd command, db *sqlite.DB) (*session.Saved, error) {
	if !cmd.cont && cmd.resume == "" {
		return nil, nil
	}
	var st session.Catalog = db
	var id string
	var err error
	if cmd.cont {
		id, err = st.Latest(ctx, cmd.dir)
		if errors.Is(err, session.ErrNotFound) {
			return nil, fmt.Errorf("no session to continue in %s", cmd.dir)
		}
	} else {
		id, err = st.Find(ctx, cmd.resume)
		switch {
		case errors.Is(err, session.ErrNotFound):
			return nil, fmt.Errorf("no session %q (lathe sessions lists them)", cmd.resume)
		case errors.Is(err, session.ErrAmbiguousID):
			return nil, fmt.Errorf("%q starts several session ids: give more of it", cmd.resume)
		}
	}
	if err != nil {
		return nil, err
	}
	saved, err := st.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	return &saved, nil
}
