package sqlite

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"lathe/orchestrator/session"
)

// HashOf is the name a content is kept under: its SHA-256, hex.
func HashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// PutBlob keeps data, compressed, under its hash (HashOf) and returns the
// hash; content kept already costs one lookup.
func (db *DB) PutBlob(ctx context.Context, data []byte) (string, error) {
	hash := HashOf(data)
	var exists int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM blobs WHERE hash = ?`, hash).Scan(&exists)
	if err != nil {
		return "", fmt.Errorf("look up blob: %w", err)
	}
	if exists > 0 {
		return hash, nil
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestSpeed) // a valid level cannot fail
	if _, err := w.Write(data); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO blobs (hash, size, stored, data) VALUES (?, ?, ?, ?)`,
			hash, len(data), z.Len(), z.Bytes())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("keep blob: %w", err)
	}
	return hash, nil
}

// ErrBlobMissing is Blob's error for a hash not kept (pruned).
var ErrBlobMissing = errors.New("content not kept")

// Blob returns the content kept under hash.
func (db *DB) Blob(ctx context.Context, hash string) ([]byte, error) {
	var z []byte
	var size int64
	err := db.sql.QueryRowContext(ctx, `SELECT size, data FROM blobs WHERE hash = ?`, hash).Scan(&size, &z)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("blob %.12s: %w", hash, ErrBlobMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("read blob %.12s: %w", hash, err)
	}
	data, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), size+1))
	if err != nil || int64(len(data)) != size || HashOf(data) != hash {
		return nil, fmt.Errorf("blob %.12s is damaged", hash)
	}
	return data, nil
}

// CreateCheckpoint records the start of a run whose prompt is at seq in
// the session's history, and returns the checkpoint's id.
func (db *DB) CreateCheckpoint(ctx context.Context, sessionID string, seq int, at time.Time) (int64, error) {
	var id int64
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (session_id, seq, created_at) VALUES (?, ?, ?)`,
			sessionID, seq, stamp(at))
		if err != nil {
			return sessionMissing(err)
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("create checkpoint of session %s: %w", sessionID, err)
	}
	return id, nil
}

// SaveFileChange records a file a run changed. The first record of a path
// in a checkpoint keeps its Before; later ones only move its After on.
func (db *DB) SaveFileChange(ctx context.Context, checkpointID int64, f session.FileChange) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO checkpoint_files (checkpoint_id, path, before_hash, before_mode,
			before_size, after_hash, after_mode, after_size, by, problem) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (checkpoint_id, path) DO UPDATE SET after_hash = excluded.after_hash,
			after_mode = excluded.after_mode, after_size = excluded.after_size,
			problem = CASE WHEN problem = '' THEN excluded.problem ELSE problem END`,
			checkpointID, f.Path, nullString(f.Before.Hash), int64(f.Before.Mode), f.Before.Size,
			nullString(f.After.Hash), int64(f.After.Mode), f.After.Size, f.By, f.Problem)
		return err
	})
	if err != nil {
		return fmt.Errorf("save change of %s: %w", f.Path, err)
	}
	return nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Checkpoints returns the session's checkpoints, oldest first, with their
// files in path order.
func (db *DB) Checkpoints(ctx context.Context, sessionID string) ([]session.Checkpoint, error) {
	var out []session.Checkpoint
	err := db.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, seq, created_at, undone_at FROM checkpoints
			WHERE session_id = ? ORDER BY id`, sessionID)
		if err != nil {
			return err
		}
		byID := map[int64]int{}
		for rows.Next() {
			var c session.Checkpoint
			var created int64
			var undone *int64
			if err := rows.Scan(&c.ID, &c.Seq, &created, &undone); err != nil {
				rows.Close()
				return err
			}
			c.SessionID, c.Created, c.Undone = sessionID, unstamp(created), unstampNull(undone)
			byID[c.ID] = len(out)
			out = append(out, c)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `SELECT f.checkpoint_id, f.path, f.before_hash, f.before_mode, f.before_size,
			f.after_hash, f.after_mode, f.after_size, f.by, f.problem FROM checkpoint_files f
			JOIN checkpoints c ON c.id = f.checkpoint_id WHERE c.session_id = ? ORDER BY f.checkpoint_id, f.path`, sessionID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id            int64
				f             session.FileChange
				before, after sql.Null[string]
				bmode, amode  int64
			)
			if err := rows.Scan(&id, &f.Path, &before, &bmode, &f.Before.Size, &after, &amode, &f.After.Size,
				&f.By, &f.Problem); err != nil {
				return err
			}
			f.Before.Hash, f.Before.Mode = before.V, fs.FileMode(bmode)
			f.After.Hash, f.After.Mode = after.V, fs.FileMode(amode)
			c := &out[byID[id]]
			c.Files = append(c.Files, f)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoints of session %s: %w", sessionID, err)
	}
	return out, nil
}

// UndoRun marks checkpoint cp undone and takes the run back from the
// session's history: its messages (from cp.Seq on), the compactions made
// during it and the mode records after its prompt move aside, kept with
// the checkpoint for RedoRun.
func (db *DB) UndoRun(ctx context.Context, cp session.Checkpoint, at time.Time) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		stmts := []struct {
			q    string
			args []any
		}{
			{`INSERT INTO undone_messages (checkpoint_id, ` + messageColumns + `) SELECT ?, ` + messageColumns +
				` FROM messages WHERE session_id = ? AND seq >= ?`,
				[]any{cp.ID, cp.SessionID, cp.Seq}},
			{`DELETE FROM messages WHERE session_id = ? AND seq >= ?`, []any{cp.SessionID, cp.Seq}},
			{`INSERT INTO undone_compactions (checkpoint_id, seq, summary, created_at) SELECT ?, seq, summary, created_at FROM compactions
				WHERE session_id = ? AND created_at >= ?`, []any{cp.ID, cp.SessionID, stamp(cp.Created)}},
			{`DELETE FROM compactions WHERE session_id = ? AND created_at >= ?`, []any{cp.SessionID, stamp(cp.Created)}},
			{`INSERT INTO undone_modes (checkpoint_id, seq, mode, plan, reason, created_at) SELECT ?, seq, mode, plan, reason, created_at FROM modes
				WHERE session_id = ? AND seq > ?`, []any{cp.ID, cp.SessionID, cp.Seq}},
			{`DELETE FROM modes WHERE session_id = ? AND seq > ?`, []any{cp.SessionID, cp.Seq}},
			{`UPDATE checkpoints SET undone_at = ? WHERE id = ?`, []any{stamp(at), cp.ID}},
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("undo run %d of session %s: %w", cp.ID, cp.SessionID, err)
	}
	return nil
}

// RedoRun puts back what UndoRun took from the history, when nothing was
// added to it since (else ErrNothingToRedo), and marks cp done again.
func (db *DB) RedoRun(ctx context.Context, cp session.Checkpoint) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		var later int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE session_id = ? AND seq >= ?`,
			cp.SessionID, cp.Seq).Scan(&later); err != nil {
			return err
		}
		if later > 0 {
			return session.ErrNothingToRedo
		}
		stmts := []struct {
			q    string
			args []any
		}{
			{`INSERT INTO messages (session_id, ` + messageColumns + `) SELECT ?, ` + messageColumns +
				` FROM undone_messages WHERE checkpoint_id = ?`, []any{cp.SessionID, cp.ID}},
			{`INSERT OR REPLACE INTO compactions (session_id, seq, summary, created_at) SELECT ?, seq, summary, created_at
				FROM undone_compactions WHERE checkpoint_id = ?`, []any{cp.SessionID, cp.ID}},
			{`INSERT OR REPLACE INTO modes (session_id, seq, mode, plan, reason, created_at) SELECT ?, seq, mode, plan,
				reason, created_at FROM undone_modes WHERE checkpoint_id = ?`, []any{cp.SessionID, cp.ID}},
			{`DELETE FROM undone_messages WHERE checkpoint_id = ?`, []any{cp.ID}},
			{`DELETE FROM undone_compactions WHERE checkpoint_id = ?`, []any{cp.ID}},
			{`DELETE FROM undone_modes WHERE checkpoint_id = ?`, []any{cp.ID}},
			{`UPDATE checkpoints SET undone_at = NULL WHERE id = ?`, []any{cp.ID}},
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("redo run %d of session %s: %w", cp.ID, cp.SessionID, err)
	}
	return nil
}

// UndonePrompt is the prompt of a run undone: the user message at seq of
// the session, as UndoRun kept it; "" when none was kept.
func (db *DB) UndonePrompt(ctx context.Context, sessionID string, seq int) (string, error) {
	var content string
	err := db.sql.QueryRowContext(ctx, `SELECT u.content FROM undone_messages u JOIN checkpoints c ON c.id = u.checkpoint_id
		WHERE c.session_id = ? AND u.seq = ? AND u.role = 'user' ORDER BY u.checkpoint_id DESC LIMIT 1`, sessionID, seq).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("undone prompt of session %s: %w", sessionID, err)
	}
	return content, nil
}

// CheckpointBytes is how much the kept contents take in the database.
func (db *DB) CheckpointBytes(ctx context.Context) (int64, error) {
	var n int64
	err := db.sql.QueryRowContext(ctx, `SELECT coalesce(sum(stored), 0) FROM blobs`).Scan(&n)
	return n, err
}

// PruneCheckpoints removes checkpoints, those of the least recently
// updated sessions first, until the contents they keep take at most
// limit bytes, and drops the contents no checkpoint holds any more. It
// returns how many checkpoints it removed.
func (db *DB) PruneCheckpoints(ctx context.Context, limit int64) (int, error) {
	removed := 0
	err := db.write(ctx, func(tx *sql.Tx) error {
		if err := dropUnheld(ctx, tx); err != nil {
			return err
		}
		for {
			var total int64
			if err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(stored), 0) FROM blobs`).Scan(&total); err != nil {
				return err
			}
			if total <= limit {
				return nil
			}
			var id int64
			err := tx.QueryRowContext(ctx, `SELECT c.id FROM checkpoints c JOIN sessions s ON s.id = c.session_id
				ORDER BY s.updated_at, c.id LIMIT 1`).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE id = ?`, id); err != nil {
				return err
			}
			removed++
			if err := dropUnheld(ctx, tx); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return 0, fmt.Errorf("prune checkpoints: %w", err)
	}
	return removed, nil
}

// dropUnheld removes the contents no checkpoint file refers to, and the
// images no message refers to.
func dropUnheld(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE hash NOT IN (
		SELECT before_hash FROM checkpoint_files WHERE before_hash IS NOT NULL
		UNION SELECT after_hash FROM checkpoint_files WHERE after_hash IS NOT NULL)`)
	if err != nil {
		return err
	}
	return dropUnheldImages(ctx, tx)
}
