package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"lathe/orchestrator/session"
)

// AddFact keeps a fact about the project in dir, its text cleaned (see
// session.CleanFact); the same text twice is kept once, and the fact
// already there is returned.
func (db *DB) AddFact(ctx context.Context, dir, text string, at time.Time) (session.Fact, error) {
	text, err := session.CleanFact(text)
	if err != nil {
		return session.Fact{}, err
	}
	f := session.Fact{Dir: dir, Text: text, Created: unstamp(stamp(at))}
	f.Updated = f.Created
	err = db.write(ctx, func(tx *sql.Tx) error {
		var id, created, updated int64
		switch err := tx.QueryRowContext(ctx, `SELECT id, created_at, updated_at FROM facts WHERE dir = ? AND text = ?`,
			dir, text).Scan(&id, &created, &updated); err {
		case nil:
			f.ID, f.Created, f.Updated = id, unstamp(created), unstamp(updated)
			return nil
		case sql.ErrNoRows:
		default:
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO facts (dir, text, created_at, updated_at) VALUES (?, ?, ?, ?)`,
			dir, text, f.Created.UnixNano(), f.Created.UnixNano())
		if err != nil {
			return err
		}
		f.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return session.Fact{}, fmt.Errorf("remember a fact: %w", err)
	}
	return f, nil
}

// Facts returns the facts kept about the project in dir (every project's
// when dir is empty), oldest first.
func (db *DB) Facts(ctx context.Context, dir string) ([]session.Fact, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, dir, text, created_at, updated_at FROM facts
		WHERE ? = '' OR dir = ? ORDER BY id`, dir, dir)
	if err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	defer rows.Close()
	var out []session.Fact
	for rows.Next() {
		var f session.Fact
		var created, updated int64
		if err := rows.Scan(&f.ID, &f.Dir, &f.Text, &created, &updated); err != nil {
			return nil, fmt.Errorf("list facts: %w", err)
		}
		f.Created, f.Updated = unstamp(created), unstamp(updated)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	return out, nil
}

// EditFact replaces the text of fact id of the project in dir;
// session.ErrFactNotFound when it has no such fact.
func (db *DB) EditFact(ctx context.Context, dir string, id int64, text string, at time.Time) error {
	text, err := session.CleanFact(text)
	if err != nil {
		return err
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE facts SET text = ?, updated_at = ? WHERE id = ? AND dir = ?`,
			text, stamp(at), id, dir)
		if err != nil {
			return err
		}
		return mustAffect(res, session.ErrFactNotFound)
	})
	if err != nil {
		return fmt.Errorf("edit fact %d: %w", id, err)
	}
	return nil
}

// DeleteFact forgets fact id of the project in dir (of any project when
// dir is empty); session.ErrFactNotFound when there is no such fact.
func (db *DB) DeleteFact(ctx context.Context, dir string, id int64) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM facts WHERE id = ? AND (? = '' OR dir = ?)`, id, dir, dir)
		if err != nil {
			return err
		}
		return mustAffect(res, session.ErrFactNotFound)
	})
	if err != nil {
		return fmt.Errorf("forget fact %d: %w", id, err)
	}
	return nil
}
