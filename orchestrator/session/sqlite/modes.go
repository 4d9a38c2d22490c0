package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"lathe/orchestrator/session"
)

// SaveMode records the session's mode from position m.Seq of its history
// on, replacing a record already at m.Seq (a plan's checklist updated in
// place). The plan is kept as its JSON (NULL when nil); JSON text is
// UTF-8, so invalid UTF-8 in it is read back as U+FFFD. A mode record
// does not count as an update of the session, as a compaction does not.
func (db *DB) SaveMode(ctx context.Context, sessionID string, m session.ModeRecord) error {
	err := db.saveMode(ctx, sessionID, m)
	if err != nil {
		return fmt.Errorf("save mode at %d of session %s: %w", m.Seq, sessionID, err)
	}
	return nil
}

func (db *DB) saveMode(ctx context.Context, sessionID string, m session.ModeRecord) error {
	var plan any // NULL
	if m.Plan != nil {
		b, err := json.Marshal(m.Plan)
		if err != nil {
			return fmt.Errorf("encode plan: %w", err)
		}
		plan = string(b)
	}
	at := stamp(m.Created)
	return db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO modes (session_id, seq, mode, plan, reason, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, sessionID, m.Seq, m.Mode, plan, m.Reason, at)
		return sessionMissing(err)
	})
}

// loadModes is the session's mode records by seq; nil when it has none.
func loadModes(ctx context.Context, tx *sql.Tx, id string) ([]session.ModeRecord, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, mode, plan, reason, created_at FROM modes
		WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var modes []session.ModeRecord
	for rows.Next() {
		var (
			m        session.ModeRecord
			planJSON sql.Null[string]
			created  int64
		)
		if err := rows.Scan(&m.Seq, &m.Mode, &planJSON, &m.Reason, &created); err != nil {
			return nil, err
		}
		m.Created = unstamp(created)
		if planJSON.Valid {
			m.Plan = new(session.PlanRecord)
			if err := json.Unmarshal([]byte(planJSON.V), m.Plan); err != nil {
				return nil, fmt.Errorf("decode plan of mode at %d: %w", m.Seq, err)
			}
		}
		modes = append(modes, m)
	}
	return modes, rows.Err()
}
