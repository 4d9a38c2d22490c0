package main

import (
	"context"
	"errors"

	"lathe/session"
	"lathe/session/sqlite"
)

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
		id, err = findSession(ctx, db, cmd.resume)
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
