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
