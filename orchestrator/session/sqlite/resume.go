package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"lathe/orchestrator/session"
)

// LoadResume returns a session to resume: what Load returns, but for the
// messages before its latest compaction's seq, which requests no longer
// send: they are not read (Messages starts at session.Saved.From), and are
// read with Messages when someone scrolls back to them. Resuming a long
// session reads, and holds, what it sends, not its length.
func (db *DB) LoadResume(ctx context.Context, id string) (session.Saved, error) {
	var s session.Saved
	err := db.read(ctx, func(tx *sql.Tx) error {
		if err := loadHeader(ctx, tx, id, &s); err != nil {
			return err
		}
		var err error
		if s.Compaction, err = loadCompaction(ctx, tx, id); err != nil {
			return err
		}
		if c := s.Compaction; c != nil {
			s.From = c.Seq
		}
		if s.Messages, err = loadRange(ctx, tx, id, s.From, -1); err != nil {
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

// Messages returns the session's messages from seq from up to seq to
// (excluded; -1 for the end), whole, in seq order.
func (db *DB) Messages(ctx context.Context, id string, from, to int) ([]session.Message, error) {
	var msgs []session.Message
	err := db.read(ctx, func(tx *sql.Tx) error {
		var err error
		msgs, err = loadRange(ctx, tx, id, from, to)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read messages %d to %d of session %s: %w", from, to, id, err)
	}
	return msgs, nil
}

// loadRange reads the messages from seq from up to to (excluded; -1 for
// the end), their images decoded.
func loadRange(ctx context.Context, tx *sql.Tx, id string, from, to int) ([]session.Message, error) {
	if to < 0 {
		to = int(^uint(0) >> 1)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq`, id, from, to)
	if err != nil {
		return nil, err
	}
	return scanMessages(ctx, tx, rows)
}
