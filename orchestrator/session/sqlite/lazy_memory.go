package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"lathe/orchestrator/session"
	"lathe/tools/codeindex"
)

// The lazy store's memory: what only reads finds nothing while no
// database exists, and creates none; what writes opens (or creates) it.

// reading runs fn on the database when there is one: once it is open,
// or when its file exists (looked for only until then). When there is
// none, fn does not run, for the caller to answer "nothing".
func (s *Lazy) reading(ctx context.Context, fn func(db *DB) error) error {
	if s.opened() == nil {
		if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return s.with(ctx, fn)
}

// readValue is reading for a method with a result: none when there is no
// database.
func readValue[T any](ctx context.Context, s *Lazy, none T, fn func(db *DB) (T, error)) (T, error) {
	v := none
	err := s.reading(ctx, func(db *DB) error {
		var err error
		v, err = fn(db)
		return err
	})
	return v, err
}

func (s *Lazy) Search(ctx context.Context, q session.SearchQuery) ([]session.Hit, error) {
	return readValue(ctx, s, nil, func(db *DB) ([]session.Hit, error) { return db.Search(ctx, q) })
}

func (s *Lazy) AddFact(ctx context.Context, dir, text string, at time.Time) (session.Fact, error) {
	return withValue(ctx, s, func(db *DB) (session.Fact, error) { return db.AddFact(ctx, dir, text, at) })
}

func (s *Lazy) Facts(ctx context.Context, dir string) ([]session.Fact, error) {
	return readValue(ctx, s, nil, func(db *DB) ([]session.Fact, error) { return db.Facts(ctx, dir) })
}

func (s *Lazy) IndexModel(ctx context.Context, dir string) (string, error) {
	return readValue(ctx, s, "", func(db *DB) (string, error) { return db.IndexModel(ctx, dir) })
}

func (s *Lazy) ResetIndex(ctx context.Context, dir, model string, at time.Time) error {
	return s.with(ctx, func(db *DB) error { return db.ResetIndex(ctx, dir, model, at) })
}

func (s *Lazy) IndexedFiles(ctx context.Context, dir string) (map[string]codeindex.IndexedFile, error) {
	return readValue(ctx, s, map[string]codeindex.IndexedFile{},
		func(db *DB) (map[string]codeindex.IndexedFile, error) { return db.IndexedFiles(ctx, dir) })
}

func (s *Lazy) PutFiles(ctx context.Context, dir string, files []codeindex.FileChunks) error {
	return s.with(ctx, func(db *DB) error { return db.PutFiles(ctx, dir, files) })
}

func (s *Lazy) TouchFile(ctx context.Context, dir string, f codeindex.File) error {
	return s.with(ctx, func(db *DB) error { return db.TouchFile(ctx, dir, f) })
}

func (s *Lazy) RemoveFiles(ctx context.Context, dir string, paths []string) error {
	return s.with(ctx, func(db *DB) error { return db.RemoveFiles(ctx, dir, paths) })
}

func (s *Lazy) IndexVersion(ctx context.Context, dir string) (int64, error) {
	return readValue(ctx, s, 0, func(db *DB) (int64, error) { return db.IndexVersion(ctx, dir) })
}

func (s *Lazy) ChunkIDs(ctx context.Context, dir string) ([]int64, error) {
	return readValue(ctx, s, nil, func(db *DB) ([]int64, error) { return db.ChunkIDs(ctx, dir) })
}

func (s *Lazy) Vectors(ctx context.Context, dir string, ids []int64, fn func(id int64, vec []byte) error) error {
	err := s.reading(ctx, func(db *DB) error { return db.Vectors(ctx, dir, ids, fn) })
	return err
}

func (s *Lazy) VectorSigns(ctx context.Context, dir string, ids []int64, fn func(id int64, dims int, signs []byte) error) error {
	return s.reading(ctx, func(db *DB) error { return db.VectorSigns(ctx, dir, ids, fn) })
}

func (s *Lazy) WordCounts(ctx context.Context, words []string, most int) (map[string]int, error) {
	return readValue(ctx, s, map[string]int{},
		func(db *DB) (map[string]int, error) { return db.WordCounts(ctx, words, most) })
}

func (s *Lazy) KeywordHits(ctx context.Context, dir, match string, limit int) ([]int64, error) {
	return readValue(ctx, s, nil, func(db *DB) ([]int64, error) { return db.KeywordHits(ctx, dir, match, limit) })
}

func (s *Lazy) Chunks(ctx context.Context, ids []int64) (map[int64]codeindex.StoredChunk, error) {
	return readValue(ctx, s, map[int64]codeindex.StoredChunk{},
		func(db *DB) (map[int64]codeindex.StoredChunk, error) { return db.Chunks(ctx, ids) })
}

func (s *Lazy) IndexStats(ctx context.Context, dir string) (files, chunks int, err error) {
	err = s.reading(ctx, func(db *DB) error {
		var err error
		files, chunks, err = db.IndexStats(ctx, dir)
		return err
	})
	return files, chunks, err
}
