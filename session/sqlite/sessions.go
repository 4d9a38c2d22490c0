package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"lathe/session"
)

// MinPrefix is the shortest id prefix FindSession resolves: a shorter one
// names a session only by its full id. Ids are 16 hex digits, so four
// tell apart about 65,000 sessions.
const MinPrefix = 4

// CreateSession records a new session; its updated time starts at its
// created time (now, when s.Created is zero).
func (db *DB) CreateSession(ctx context.Context, s session.Record) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		at := stamp(s.Created)
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, title, dir, model, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)`, s.ID, s.Title, s.Dir, s.Model, at, at)
		return err
	})
	if err != nil {
		return fmt.Errorf("create session %s: %w", s.ID, err)
	}
	return nil
}

// SetTitle names a session. It does not count as an update.
func (db *DB) SetTitle(ctx context.Context, sessionID, title string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ?`, title, sessionID)
		if err != nil {
			return err
		}
		return mustAffect(res, session.ErrNotFound)
	})
	if err != nil {
		return fmt.Errorf("set title of session %s: %w", sessionID, err)
	}
	return nil
}

// mustAffect returns notFound when a statement changed no row.
func mustAffect(res sql.Result, notFound error) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound
	}
	return nil
}

// sessionMissing is err, or ErrSessionNotFound when err is a foreign-key
// failure: a session's compactions, modes and runs refer to nothing else.
func sessionMissing(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		return session.ErrNotFound
	}
	return err
}

// FindSession resolves a full id, or a prefix of at least MinPrefix
// characters that starts exactly one id. A prefix starting several ids,
// or a shorter one starting any, is ErrAmbiguousID.
func (db *DB) Find(ctx context.Context, prefix string) (string, error) {
	id, err := db.findSession(ctx, prefix)
	if err != nil {
		return "", fmt.Errorf("find session %q: %w", prefix, err)
	}
	return id, nil
}

func (db *DB) findSession(ctx context.Context, prefix string) (string, error) {
	// The ids starting with prefix are the first ones >= prefix, the
	// shortest (prefix itself, when it is an id) first.
	rows, err := db.sql.QueryContext(ctx, `SELECT id FROM sessions WHERE id >= ? ORDER BY id LIMIT 2`, prefix)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", err
		}
		if strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	switch {
	case len(ids) == 0:
		return "", session.ErrNotFound
	case ids[0] == prefix:
		return prefix, nil
	case len(prefix) < MinPrefix:
		return "", fmt.Errorf("%w: give at least %d characters", session.ErrAmbiguousID, MinPrefix)
	case len(ids) > 1:
		return "", session.ErrAmbiguousID
	}
	return ids[0], nil
}

// LatestSession returns the most recently updated session in dir.
func (db *DB) Latest(ctx context.Context, dir string) (string, error) {
	var id string
	err := db.sql.QueryRowContext(ctx, `SELECT id FROM sessions WHERE dir = ?
		ORDER BY updated_at DESC, rowid DESC LIMIT 1`, dir).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = session.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("latest session in %s: %w", dir, err)
	}
	return id, nil
}
