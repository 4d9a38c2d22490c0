package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"lathe/orchestrator/session"
)

// lastRunJoin joins each session s to its last run r (by start time), if any.
const lastRunJoin = `LEFT JOIN runs r ON r.id = (SELECT id FROM runs
	WHERE session_id = s.id ORDER BY started_at DESC, id DESC LIMIT 1)`

// LoadSession returns a session as one snapshot: its messages by seq, its
// latest compaction (by seq), its mode records by seq and its last run.
func (db *DB) Load(ctx context.Context, id string) (session.Saved, error) {
	var s session.Saved
	err := db.read(ctx, func(tx *sql.Tx) error {
		if err := loadHeader(ctx, tx, id, &s); err != nil {
			return err
		}
		var err error
		if s.Messages, err = loadMessages(ctx, tx, id); err != nil {
			return err
		}
		if s.Compaction, err = loadCompaction(ctx, tx, id); err != nil {
			return err
		}
		s.Modes, err = loadModes(ctx, tx, id)
		return err
	})
	if err != nil {
		return session.Saved{}, fmt.Errorf("load session %s: %w", id, err)
	}
	return s, nil
}

// Header returns a session's row and its last run, without its
// messages, compaction or modes: enough to know where and with which
// model it goes on, before reading the rest (LoadResume).
func (db *DB) Header(ctx context.Context, id string) (session.Saved, error) {
	var s session.Saved
	err := db.read(ctx, func(tx *sql.Tx) error { return loadHeader(ctx, tx, id, &s) })
	if err != nil {
		return session.Saved{}, fmt.Errorf("load session %s: %w", id, err)
	}
	return s, nil
}

// loadHeader reads the session's row and its last run.
func loadHeader(ctx context.Context, tx *sql.Tx, id string, s *session.Saved) error {
	h, err := scanSession(tx.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions s `+lastRunJoin+`
		WHERE s.id = ?`, id).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return session.ErrNotFound
	}
	if err != nil {
		return err
	}
	s.Record, s.Updated, s.LastRun = h.Record, h.Updated, h.LastRun
	return nil
}

// sessionColumns are a session's columns, from table s, and its last
// run's (see lastRunJoin), in the order scanSession reads them.
const sessionColumns = `s.id, s.title, s.dir, s.model, s.created_at, s.updated_at, ` + runSummaryColumns

// scanSession reads, with a row's Scan, sessionColumns and then the
// columns of extra. The summary's Messages is left 0.
func scanSession(scan func(...any) error, extra ...any) (session.Summary, error) {
	var (
		s                session.Summary
		created, updated int64
		run              nullRun
	)
	dest := append([]any{&s.ID, &s.Title, &s.Dir, &s.Model, &created, &updated}, run.dest()...)
	if err := scan(append(dest, extra...)...); err != nil {
		return s, err
	}
	s.Created, s.Updated, s.LastRun = unstamp(created), unstamp(updated), run.summary()
	return s, nil
}

func loadMessages(ctx context.Context, tx *sql.Tx, id string) ([]session.Message, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	return scanMessages(ctx, tx, rows)
}

// scanMessages reads rows of messageColumns, then their images, in the
// same transaction.
func scanMessages(ctx context.Context, tx *sql.Tx, rows *sql.Rows) ([]session.Message, error) {
	defer rows.Close()
	var err error
	var msgs []session.Message
	withImages := map[int]string{} // index in msgs: the images column
	for rows.Next() {
		m, images, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		if images.Valid {
			withImages[len(msgs)] = images.V
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close() // before the images are read, in the same transaction
	for i, column := range withImages {
		if msgs[i].Message.Images, err = decodeImages(ctx, tx, column); err != nil {
			return nil, fmt.Errorf("decode images of message %d: %w", msgs[i].Seq, err)
		}
	}
	return msgs, nil
}

// loadCompaction is the session's latest compaction, or nil.
func loadCompaction(ctx context.Context, tx *sql.Tx, id string) (*session.Compaction, error) {
	var c session.Compaction
	var created int64
	err := tx.QueryRowContext(ctx, `SELECT seq, summary, created_at FROM compactions
		WHERE session_id = ? ORDER BY seq DESC LIMIT 1`, id).Scan(&c.Seq, &c.Summary, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.Created = unstamp(created)
	return &c, nil
}

// List returns the sessions in dir, or in every directory when dir is
// empty, most recently updated first, each with its number of messages
// and its last run: one query.
func (db *DB) List(ctx context.Context, dir string) ([]session.Summary, error) {
	list, err := db.listSessions(ctx, dir)
	if err != nil {
		if dir == "" {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	return list, nil
}

func (db *DB) listSessions(ctx context.Context, dir string) ([]session.Summary, error) {
	where, args := `WHERE s.dir = ?`, []any{dir}
	if dir == "" {
		where, args = "", nil
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT `+sessionColumns+`,
		(SELECT count(*) FROM messages WHERE session_id = s.id),
		(SELECT count(*) FROM checkpoints WHERE session_id = s.id AND undone_at IS NOT NULL)
		FROM sessions s `+lastRunJoin+` `+where+` ORDER BY s.updated_at DESC, s.rowid DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []session.Summary
	for rows.Next() {
		var n, undone int
		s, err := scanSession(rows.Scan, &n, &undone)
		if err != nil {
			return nil, err
		}
		s.Messages, s.Undone = n, undone
		list = append(list, s)
	}
	return list, rows.Err()
}
