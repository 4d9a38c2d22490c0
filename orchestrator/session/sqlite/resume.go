package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// LoadResume returns a session to resume: what Load returns, but for the
// messages before its latest compaction's seq, which requests no longer
// send and which are read as stubs (see session.Saved.Stubbed), and whole
// with Messages when someone scrolls back to them. Resuming a long
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
		if c := s.Compaction; c != nil && c.Seq > 0 {
			if s.Messages, err = loadStubs(ctx, tx, id, c.Seq); err != nil {
				return err
			}
			s.Stubbed = len(s.Messages)
		}
		rest, err := loadRange(ctx, tx, id, s.Stubbed, -1)
		if err != nil {
			return err
		}
		s.Messages = append(s.Messages, rest...)
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

// loadStubs reads the n messages before seq n as stubs: the prompts with
// their text, the other messages blank (their role unknown), which is
// all a resume needs of them (see session.Saved.Stubbed). Only the
// prompts are read (prompts_by_session): a resume costs the messages
// it sends, not the session's length.
func loadStubs(ctx context.Context, tx *sql.Tx, id string, n int) ([]session.Message, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, content FROM messages INDEXED BY prompts_by_session
		WHERE session_id = ? AND seq < ? AND role = 'user' ORDER BY seq`, id, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	msgs := make([]session.Message, n)
	for i := range msgs {
		msgs[i].Seq = i
	}
	for rows.Next() {
		var seq int
		var content string
		if err := rows.Scan(&seq, &content); err != nil {
			return nil, err
		}
		msgs[seq].Message = provider.Message{Role: "user", Content: content}
	}
	return msgs, rows.Err()
}
