package sqlite

import (
	"context"
	"fmt"
)

// Prompts returns the prompts the user sent in the sessions in dir, newest
// first, each once (at the time it was last sent), at most limit: the user
// messages but lathe's notes (see Options.NotePrefix) and empty ones.
func (db *DB) Prompts(ctx context.Context, dir string, limit int) ([]string, error) {
	notes := db.opts.NotePrefix
	rows, err := db.sql.QueryContext(ctx, `SELECT m.content FROM messages m JOIN sessions s ON s.id = m.session_id
		WHERE s.dir = ? AND m.role = 'user' AND m.content <> '' AND (? = '' OR substr(m.content, 1, ?) <> ?)
		GROUP BY m.content ORDER BY max(m.created_at) DESC, max(m.rowid) DESC LIMIT ?`,
		dir, notes, len(notes), notes, limit)
	if err != nil {
		return nil, fmt.Errorf("prompts in %s: %w", dir, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("prompts in %s: %w", dir, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("prompts in %s: %w", dir, err)
	}
	return out, nil
}

// PromptsBefore returns the session's messages of role user before seq,
// by seq: in one read, through the index of them (schema version 12),
// what a list of the session's runs shows of those it no longer holds.
func (db *DB) PromptsBefore(ctx context.Context, id string, seq int) (map[int]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT seq, content FROM messages INDEXED BY prompts_by_session
		WHERE session_id = ? AND seq < ? AND role = 'user'`, id, seq)
	if err != nil {
		return nil, fmt.Errorf("prompts of session %s: %w", id, err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var n int
		var p string
		if err := rows.Scan(&n, &p); err != nil {
			return nil, fmt.Errorf("prompts of session %s: %w", id, err)
		}
		out[n] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("prompts of session %s: %w", id, err)
	}
	return out, nil
}
