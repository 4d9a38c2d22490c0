package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"lathe/tools/codeindex"
)

var _ codeindex.Store = (*DB)(nil)

// IndexModel implements codeindex.Store.
func (db *DB) IndexModel(ctx context.Context, dir string) (string, error) {
	var model string
	err := db.sql.QueryRowContext(ctx, `SELECT model FROM code_indexes WHERE dir = ?`, dir).Scan(&model)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("code index of %s: %w", dir, err)
	}
	return model, nil
}

// ResetIndex implements codeindex.Store: the files and chunks go with the
// index's row (ON DELETE CASCADE), the chunks' words with them (trigger).
func (db *DB) ResetIndex(ctx context.Context, dir, model string, at time.Time) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM code_indexes WHERE dir = ?`, dir); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO code_indexes (dir, model, dims, updated_at) VALUES (?, ?, 0, ?)`,
			dir, model, stamp(at))
		return err
	})
	if err != nil {
		return fmt.Errorf("reset the code index of %s: %w", dir, err)
	}
	return nil
}

// IndexedFiles implements codeindex.Store.
func (db *DB) IndexedFiles(ctx context.Context, dir string) (map[string]codeindex.IndexedFile, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT f.path, f.hash, f.size, f.mtime,
			(SELECT count(*) FROM code_chunks c WHERE c.dir = f.dir AND c.path = f.path)
		FROM code_files f WHERE f.dir = ?`, dir)
	if err != nil {
		return nil, fmt.Errorf("indexed files of %s: %w", dir, err)
	}
	defer rows.Close()
	out := map[string]codeindex.IndexedFile{}
	for rows.Next() {
		var f codeindex.IndexedFile
		var mtime int64
		if err := rows.Scan(&f.Path, &f.Hash, &f.Size, &mtime, &f.Chunks); err != nil {
			return nil, fmt.Errorf("indexed files of %s: %w", dir, err)
		}
		f.MTime = unstamp(mtime)
		out[f.Path] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("indexed files of %s: %w", dir, err)
	}
	return out, nil
}

// PutFiles implements codeindex.Store.
func (db *DB) PutFiles(ctx context.Context, dir string, files []codeindex.FileChunks) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		chunk, err := tx.PrepareContext(ctx, `INSERT INTO code_chunks (dir, path, start_line, end_line, symbol, text, embedding)
			VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer chunk.Close()
		words, err := tx.PrepareContext(ctx, `INSERT INTO code_fts (rowid, words) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer words.Close()
		signs, err := tx.PrepareContext(ctx, `INSERT INTO code_signs (id, dir, dims, signs) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer signs.Close()
		now, dims := time.Now().UnixNano(), 0
		for _, fc := range files {
			f := fc.File
			if _, err := tx.ExecContext(ctx, `DELETE FROM code_chunks WHERE dir = ? AND path = ?`, dir, f.Path); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO code_files (dir, path, hash, size, mtime, indexed_at)
				VALUES (?, ?, ?, ?, ?, ?)`, dir, f.Path, f.Hash, f.Size, f.MTime.UnixNano(), now); err != nil {
				return err
			}
			for _, c := range fc.Chunks {
				dims = len(c.Vector)
				res, err := chunk.ExecContext(ctx, dir, f.Path, c.Start, c.End, c.Symbol, c.Text, codeindex.EncodeVector(c.Vector))
				if err != nil {
					return err
				}
				id, err := res.LastInsertId()
				if err != nil {
					return err
				}
				if _, err := words.ExecContext(ctx, id, c.Words); err != nil {
					return err
				}
				if _, err := signs.ExecContext(ctx, id, dir, len(c.Vector), codeindex.EncodeSigns(c.Vector)); err != nil {
					return err
				}
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE code_indexes SET updated_at = max(updated_at + 1, ?), dims = max(dims, ?) WHERE dir = ?`,
			now, dims, dir)
		return err
	})
	if err != nil {
		if len(files) == 1 {
			return fmt.Errorf("store 1 file in the code index: %w", err)
		}
		return fmt.Errorf("store %d files in the code index: %w", len(files), err)
	}
	return nil
}

// TouchFile implements codeindex.Store.
func (db *DB) TouchFile(ctx context.Context, dir string, f codeindex.File) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE code_files SET size = ?, mtime = ? WHERE dir = ? AND path = ?`,
			f.Size, f.MTime.UnixNano(), dir, f.Path)
		return err
	})
	if err != nil {
		return fmt.Errorf("index %s: %w", f.Path, err)
	}
	return nil
}

// RemoveFiles implements codeindex.Store.
func (db *DB) RemoveFiles(ctx context.Context, dir string, paths []string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		for _, p := range paths {
			if _, err := tx.ExecContext(ctx, `DELETE FROM code_files WHERE dir = ? AND path = ?`, dir, p); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE code_indexes SET updated_at = max(updated_at + 1, ?) WHERE dir = ?`,
			time.Now().UnixNano(), dir)
		return err
	})
	if err != nil {
		return fmt.Errorf("take files out of the code index of %s: %w", dir, err)
	}
	return nil
}

// IndexVersion implements codeindex.Store: the time the index's chunks
// last changed.
func (db *DB) IndexVersion(ctx context.Context, dir string) (int64, error) {
	var v int64
	err := db.sql.QueryRowContext(ctx, `SELECT updated_at FROM code_indexes WHERE dir = ?`, dir).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("code index of %s: %w", dir, err)
	}
	return v, nil
}

// ChunkIDs implements codeindex.Store.
func (db *DB) ChunkIDs(ctx context.Context, dir string) ([]int64, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id FROM code_chunks WHERE dir = ? ORDER BY id`, dir)
	if err != nil {
		return nil, fmt.Errorf("chunks of %s: %w", dir, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("chunks of %s: %w", dir, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Vectors implements codeindex.Store: ids that fill most of their range
// (a whole index, the chunks added since) are read in one pass over it,
// ids scattered over it (the candidates of a search) by id, a batch at a
// time: a pass reads every vector of the range.
func (db *DB) Vectors(ctx context.Context, dir string, ids []int64, fn func(id int64, vec []byte) error) error {
	if len(ids) == 0 {
		return nil
	}
	if span := ids[len(ids)-1] - ids[0] + 1; span <= 2*int64(len(ids)) {
		return db.vectorRange(ctx, dir, ids, fn)
	}
	const batch = 500
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		args := make([]any, 0, len(part)+1)
		for _, id := range part {
			args = append(args, id)
		}
		// "+dir" keeps SQLite from reading the project's chunks by the
		// index on (dir, path): every one of them.
		err := db.vectorRows(ctx, dir, part, fn, `SELECT id, embedding FROM code_chunks WHERE id IN (?`+
			strings.Repeat(", ?", len(part)-1)+`) AND +dir = ? ORDER BY id`, append(args, dir)...)
		if err != nil {
			return err
		}
	}
	return nil
}

// vectorRange reads the vectors of ids in one pass over their range.
func (db *DB) vectorRange(ctx context.Context, dir string, ids []int64, fn func(id int64, vec []byte) error) error {
	return db.vectorRows(ctx, dir, ids, fn, `SELECT id, embedding FROM code_chunks WHERE dir = ? AND id >= ? AND id <= ? ORDER BY id`,
		dir, ids[0], ids[len(ids)-1])
}

// vectorRows calls fn with the rows of query (id, embedding, in id order)
// whose ids are in ids.
func (db *DB) vectorRows(ctx context.Context, dir string, ids []int64, fn func(id int64, vec []byte) error, query string, args ...any) error {
	var id int64
	var vec sql.RawBytes
	return db.rowsOf(ctx, dir, ids, func() error { return fn(id, vec) }, &id, []any{&id, &vec}, query, args...)
}

// VectorSigns implements codeindex.Store, in one pass over the range of
// ids.
func (db *DB) VectorSigns(ctx context.Context, dir string, ids []int64, fn func(id int64, dims int, signs []byte) error) error {
	if len(ids) == 0 {
		return nil
	}
	var id int64
	var dims int
	var signs sql.RawBytes
	return db.rowsOf(ctx, dir, ids, func() error { return fn(id, dims, signs) }, &id, []any{&id, &dims, &signs},
		`SELECT id, dims, signs FROM code_signs WHERE id >= ? AND id <= ? AND dir = ? ORDER BY id`,
		ids[0], ids[len(ids)-1], dir)
}

// rowsOf scans the rows of query, in id order, into dest, and calls fn
// for those whose id (scanned into id) is in ids, which are sorted.
func (db *DB) rowsOf(ctx context.Context, dir string, ids []int64, fn func() error, id *int64, dest []any, query string, args ...any) error {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("vectors of %s: %w", dir, err)
	}
	defer rows.Close()
	next := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("vectors of %s: %w", dir, err)
		}
		for next < len(ids) && ids[next] < *id {
			next++
		}
		if next == len(ids) {
			break
		}
		if ids[next] != *id {
			continue
		}
		if err := fn(); err != nil {
			return err
		}
	}
	return rows.Err()
}

// WordCounts implements codeindex.Store: the chunks holding each word are
// counted as FTS5 finds them, up to most+1 (FTS5's vocabulary table would
// read every chunk holding it).
func (db *DB) WordCounts(ctx context.Context, words []string, most int) (map[string]int, error) {
	out := map[string]int{}
	for _, w := range words {
		var n int
		err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM code_fts WHERE code_fts MATCH ? LIMIT ?)`,
			`"`+strings.ReplaceAll(w, `"`, `""`)+`"`, most+1).Scan(&n)
		if err != nil {
			return nil, fmt.Errorf("word counts: %w", err)
		}
		if n > 0 {
			out[w] = n
		}
	}
	return out, nil
}

// KeywordHits implements codeindex.Store.
func (db *DB) KeywordHits(ctx context.Context, dir, match string, limit int) ([]int64, error) {
	// FTS5 ranks the matches itself (ORDER BY rank with a LIMIT); the
	// chunks of other projects are left out after, from four times as
	// many.
	rows, err := db.sql.QueryContext(ctx, `SELECT c.id FROM
			(SELECT rowid, rank FROM code_fts WHERE code_fts MATCH ? ORDER BY rank LIMIT ?) f
		JOIN code_chunks c ON c.id = f.rowid
		WHERE c.dir = ? ORDER BY f.rank, c.id LIMIT ?`, match, 4*limit, dir, limit)
	if err != nil {
		return nil, fmt.Errorf("keyword search of %s: %w", dir, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("keyword search of %s: %w", dir, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Chunks implements codeindex.Store.
func (db *DB) Chunks(ctx context.Context, ids []int64) (map[int64]codeindex.StoredChunk, error) {
	out := map[int64]codeindex.StoredChunk{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT c.id, c.path, c.start_line, c.end_line, c.symbol, c.text,
			f.hash, f.size, f.mtime
		FROM code_chunks c JOIN code_files f ON f.dir = c.dir AND f.path = c.path
		WHERE c.id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, mtime int64
		var c codeindex.StoredChunk
		if err := rows.Scan(&id, &c.Path, &c.Start, &c.End, &c.Symbol, &c.Text, &c.File.Hash, &c.File.Size, &mtime); err != nil {
			return nil, fmt.Errorf("chunks: %w", err)
		}
		c.File.Path, c.File.MTime = c.Path, unstamp(mtime)
		out[id] = c
	}
	return out, rows.Err()
}

// IndexStats implements codeindex.Store.
func (db *DB) IndexStats(ctx context.Context, dir string) (files, chunks int, err error) {
	err = db.sql.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM code_files WHERE dir = ?),
		(SELECT count(*) FROM code_chunks WHERE dir = ?)`, dir, dir).Scan(&files, &chunks)
	if err != nil {
		return 0, 0, fmt.Errorf("code index of %s: %w", dir, err)
	}
	return files, chunks, nil
}
