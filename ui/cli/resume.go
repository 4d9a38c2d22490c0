package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
)

// resumption is the session --continue or --resume picks up, and the
// store it is kept in.
type resumption struct {
	db           *sqlite.DB
	savedSession *session.Saved
	// note says that the session is continued in its own directory,
	// not the one lathe was started in; "" when they are the same.
	note string
}

// saved is the session to resume; nil for none.
func (r *resumption) saved() *session.Saved {
	if r == nil {
		return nil
	}
	return r.savedSession
}

// resumeFlags are --continue and --resume ID.
type resumeFlags struct {
	cont bool   // --continue
	id   string // --resume ID
}

func (rf *resumeFlags) define(fs *pflag.FlagSet) {
	fs.BoolVar(&rf.cont, "continue", false, "")
	fs.StringVar(&rf.id, "resume", "", "")
}

func (rf *resumeFlags) check(fs *pflag.FlagSet) error {
	switch {
	case rf.cont && fs.Changed("resume"):
		return usagef("--continue and --resume cannot go together")
	case fs.Changed("resume") && strings.TrimSpace(rf.id) == "":
		return usagef("--resume needs a session id (lathe sessions lists them)")
	}
	return nil
}

// session opens the store and loads the session --continue or --resume
// asks for, and makes the session's directory the working directory: its
// tools work where its files are. It returns nil when neither flag was
// given. A session that does not exist, or whose directory does not, is a
// usage error; a database that fails is not. With headerOnly, only the
// session's header is read (where and with which model it goes on): the
// UI reads the rest after its first frame (ui.Options.ResumeLoader).
func (rf *resumeFlags) session(ctx context.Context, f *Factory, headerOnly bool) (*resumption, error) {
	if !rf.cont && rf.id == "" {
		return nil, nil
	}
	db, err := f.Saved(ctx)
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	saved, err := rf.load(ctx, f, db, headerOnly)
	if err != nil {
		return nil, err
	}
	note, err := moveTo(f, saved)
	if err != nil {
		return nil, err
	}
	return &resumption{db: db, savedSession: saved, note: note}, nil
}

// load loads the session --continue or --resume asks for from db (nil
// when no session was ever saved), or only its header.
func (rf *resumeFlags) load(ctx context.Context, f *Factory, db *sqlite.DB, headerOnly bool) (*session.Saved, error) {
	var id string
	var err error
	if rf.id != "" {
		id, err = findSession(ctx, db, rf.id)
	} else {
		id, err = latestSession(ctx, db, f.Dir)
	}
	if err != nil {
		return nil, err
	}
	load := db.LoadResume
	if headerOnly {
		load = db.Header
	}
	saved, err := load(ctx, id)
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
func moveTo(f *Factory, saved *session.Saved) (note string, err error) {
	if sameDir(saved.Dir, f.Dir) {
		return "", nil
	}
	if f.DirSet {
		return "", usagef("session %s belongs to %s, not -C %s: leave out -C to continue it there",
			saved.ID, saved.Dir, f.Dir)
	}
	if info, err := os.Stat(saved.Dir); err != nil || !info.IsDir() {
		return "", usagef("session %s was saved in %s, which no longer exists: it cannot be continued",
			saved.ID, saved.Dir)
	}
	f.Dir = saved.Dir
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
