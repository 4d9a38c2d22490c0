package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
)

// resumption is the session --continue or --resume picks up, and the
// store it is kept in.
type resumption struct {
	db    *sqlite.DB
	saved *session.Saved
	// note says that the session is continued in its own directory,
	// not the one lathe was started in; "" when they are the same.
	note string
}

// resumeSession opens the store and loads the session --continue or
// --resume asks for, and makes the session's directory the working
// directory: its tools work where its files are. It returns nil when
// neither flag was given. A session that does not exist, or whose
// directory does not, is a usage error; a database that fails is not.
func (cmd *command) resumeSession(ctx context.Context) (*resumption, error) {
	if !cmd.cont && cmd.resume == "" {
		return nil, nil
	}
	db, err := openSaved(ctx, cmd.env.get)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	saved, err := cmd.savedSession(ctx, db)
	if err == nil {
		var note string
		if note, err = cmd.moveTo(saved); err == nil {
			return &resumption{db: db, saved: saved, note: note}, nil
		}
	}
	if db != nil {
		db.Close()
	}
	return nil, err
}

// savedSession loads the session --continue or --resume asks for from db
// (nil when no session was ever saved).
func (cmd *command) savedSession(ctx context.Context, db *sqlite.DB) (*session.Saved, error) {
	var id string
	var err error
	if cmd.resume != "" {
		id, err = findSession(ctx, db, cmd.resume)
	} else {
		id, err = latestSession(ctx, db, cmd.dir)
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

// latestSession is the session of dir updated last; none is a usage
// error.
func latestSession(ctx context.Context, db *sqlite.DB, dir string) (string, error) {
	if db == nil {
		return "", usagef("no session to continue in %s", dir)
	}
	id, err := db.Latest(ctx, dir)
	if errors.Is(err, session.ErrNotFound) {
		return "", usagef("no session to continue in %s", dir)
	}
	return id, err
}

// moveTo makes the directory saved was kept in the working directory,
// and says so when it was not already.
func (cmd *command) moveTo(saved *session.Saved) (note string, err error) {
	if sameDir(saved.Dir, cmd.dir) {
		return "", nil
	}
	if cmd.dirSet {
		return "", usagef("session %s belongs to %s, not -C %s: leave out -C to continue it there",
			saved.ID, saved.Dir, cmd.dir)
	}
	if info, err := os.Stat(saved.Dir); err != nil || !info.IsDir() {
		return "", usagef("session %s was saved in %s, which no longer exists: it cannot be continued",
			saved.ID, saved.Dir)
	}
	cmd.dir = saved.Dir
	return fmt.Sprintf("resuming session %s of %s: working there", saved.ID, saved.Dir), nil
}

// sameDir reports whether a and b name the same directory, however
// written (a link to it, say).
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}
