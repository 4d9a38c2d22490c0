package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
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

// loadStubs reads the messages before seq before as stubs, by seq, up to
// the first one missing: the history stops at a gap (see session.Mend).
func loadStubs(ctx context.Context, tx *sql.Tx, id string, before int) ([]session.Message, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, role, CASE WHEN role = 'user' THEN content ELSE '' END,
		tool_calls, tool_name, tool_call_id, cut FROM messages
		WHERE session_id = ? AND seq < ? ORDER BY seq`, id, before)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var msgs []session.Message
	for rows.Next() {
		var (
			m     session.Message
			msg   = &m.Message
			calls sql.Null[string]
			role  string
		)
		if err := rows.Scan(&m.Seq, &role, &msg.Content, &calls, &msg.ToolName, &msg.ToolCallID, &m.Cut); err != nil {
			return nil, err
		}
		if m.Seq != len(msgs) {
			break
		}
		msg.Role = intern(role)
		if calls.Valid {
			var stored []storedCall
			if err := json.Unmarshal([]byte(calls.V), &stored); err != nil {
				return nil, fmt.Errorf("decode tool calls of message %d: %w", m.Seq, err)
			}
			for _, c := range stored {
				msg.ToolCalls = append(msg.ToolCalls, provider.ToolCall{ID: c.ID, Index: c.Function.Index, Name: c.Function.Name})
			}
		}
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}

// intern is a role as one string for all the messages that have it.
func intern(role string) string {
	for _, r := range []string{"user", "assistant", "tool", "system"} {
		if role == r {
			return r
		}
	}
	return role
}
