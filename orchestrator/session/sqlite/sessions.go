package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"lathe/orchestrator/session"
)

// MinPrefix is the shortest id prefix FindSession resolves: a shorter one
// names a session only by its full id. Ids are 16 hex digits, so four
// tell apart about 65,000 sessions.
const MinPrefix = 4

// CreateSession records a new session, with this process holding its
// lease (see Claim); its updated time starts at its created time (now,
// when s.Created is zero).
func (db *DB) CreateSession(ctx context.Context, s session.Record) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		at := stamp(s.Created)
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, title, dir, model, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)`, s.ID, s.Title, s.Dir, s.Model, at, at)
		if err != nil {
			return err
		}
		return claim(ctx, tx, s.ID)
	})
	if err != nil {
		return fmt.Errorf("create session %s: %w", s.ID, err)
	}
	db.held.Store(s.ID, true)
	return nil
}

// Delete removes a session and everything kept of it. A session another
// live lathe process uses is not removed (*session.InUseError).
func (db *DB) Delete(ctx context.Context, id string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		if err := claim(ctx, tx, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if err := mustAffect(res, session.ErrNotFound); err != nil {
			return err
		}
		return dropUnheld(ctx, tx) // the contents its checkpoints alone kept
	})
	var inUse *session.InUseError
	if errors.As(err, &inUse) {
		return err // it names the session
	}
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	db.held.Delete(id)
	return nil
}

// Prune removes the sessions last updated before t, in dir or, when dir
// is empty, everywhere, but for those another live lathe process uses,
// and returns how many it removed.
func (db *DB) Prune(ctx context.Context, dir string, before time.Time) (int, error) {
	var n int
	err := db.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM sessions WHERE updated_at < ? AND (? = '' OR dir = ?)`,
			before.UnixNano(), dir, dir)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, id := range ids {
			var inUse *session.InUseError
			switch err := claim(ctx, tx, id); {
			case errors.As(err, &inUse):
				continue
			case err != nil:
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
				return err
			}
			n++
		}
		return dropUnheld(ctx, tx)
	})
	if err != nil {
		return 0, fmt.Errorf("prune sessions: %w", err)
	}
	return n, nil
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
