package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"lathe/codeindex"
	"lathe/session"
	"lathe/session/sqlite"
)

// memoryStore is where the memory tools, the facts of the prompt and the
// code index are kept: the session database, opened at once or lazily.
type memoryStore interface {
	codeindex.Store
	Search(ctx context.Context, q session.SearchQuery) ([]session.Hit, error)
	AddFact(ctx context.Context, dir, text string, at time.Time) (session.Fact, error)
	Facts(ctx context.Context, dir string) ([]session.Fact, error)
}

var (
	_ memoryStore = (*sqlite.DB)(nil)
	_ memoryStore = (*lazyStore)(nil)
)

// The lazy store's memory: what only reads finds nothing while no
// database exists, and creates none; what writes opens (or creates) it.

// reading runs fn on the database when there is one: once it is open,
// or when its file exists (looked for only until then). When there is
// none, fn does not run, for the caller to answer "nothing".
func (s *lazyStore) reading(fn func(db *sqlite.DB) error) error {
	if s.opened() == nil {
		if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return s.with(fn)
}

func (s *lazyStore) Search(ctx context.Context, q session.SearchQuery) ([]session.Hit, error) {
	var hits []session.Hit
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		hits, err = db.Search(ctx, q)
		return err
	})
	return hits, err
}

func (s *lazyStore) AddFact(ctx context.Context, dir, text string, at time.Time) (session.Fact, error) {
	var f session.Fact
	err := s.with(func(db *sqlite.DB) error {
		var err error
		f, err = db.AddFact(ctx, dir, text, at)
		return err
	})
	return f, err
}

func (s *lazyStore) Facts(ctx context.Context, dir string) ([]session.Fact, error) {
	var facts []session.Fact
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		facts, err = db.Facts(ctx, dir)
		return err
	})
	return facts, err
}

func (s *lazyStore) IndexModel(ctx context.Context, dir string) (string, error) {
	var model string
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		model, err = db.IndexModel(ctx, dir)
		return err
	})
	return model, err
}

func (s *lazyStore) ResetIndex(ctx context.Context, dir, model string, at time.Time) error {
	return s.with(func(db *sqlite.DB) error { return db.ResetIndex(ctx, dir, model, at) })
}

func (s *lazyStore) IndexedFiles(ctx context.Context, dir string) (map[string]codeindex.IndexedFile, error) {
	files := map[string]codeindex.IndexedFile{}
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		files, err = db.IndexedFiles(ctx, dir)
		return err
	})
	return files, err
}

func (s *lazyStore) PutFiles(ctx context.Context, dir string, files []codeindex.FileChunks) error {
	return s.with(func(db *sqlite.DB) error { return db.PutFiles(ctx, dir, files) })
}

func (s *lazyStore) TouchFile(ctx context.Context, dir string, f codeindex.File) error {
	return s.with(func(db *sqlite.DB) error { return db.TouchFile(ctx, dir, f) })
}

func (s *lazyStore) RemoveFiles(ctx context.Context, dir string, paths []string) error {
	return s.with(func(db *sqlite.DB) error { return db.RemoveFiles(ctx, dir, paths) })
}

func (s *lazyStore) IndexVersion(ctx context.Context, dir string) (int64, error) {
	var v int64
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		v, err = db.IndexVersion(ctx, dir)
		return err
	})
	return v, err
}

func (s *lazyStore) ChunkIDs(ctx context.Context, dir string) ([]int64, error) {
	var ids []int64
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		ids, err = db.ChunkIDs(ctx, dir)
		return err
	})
	return ids, err
}

func (s *lazyStore) Vectors(ctx context.Context, dir string, ids []int64, fn func(id int64, vec []byte) error) error {
	err := s.reading(func(db *sqlite.DB) error { return db.Vectors(ctx, dir, ids, fn) })
	return err
}

func (s *lazyStore) WordCounts(ctx context.Context, words []string) (map[string]int, error) {
	counts := map[string]int{}
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		counts, err = db.WordCounts(ctx, words)
		return err
	})
	return counts, err
}

func (s *lazyStore) KeywordHits(ctx context.Context, dir, match string, limit int) ([]int64, error) {
	var ids []int64
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		ids, err = db.KeywordHits(ctx, dir, match, limit)
		return err
	})
	return ids, err
}

func (s *lazyStore) Chunks(ctx context.Context, ids []int64) (map[int64]codeindex.StoredChunk, error) {
	chunks := map[int64]codeindex.StoredChunk{}
	err := s.reading(func(db *sqlite.DB) error {
		var err error
		chunks, err = db.Chunks(ctx, ids)
		return err
	})
	return chunks, err
}

func (s *lazyStore) IndexStats(ctx context.Context, dir string) (files, chunks int, err error) {
	err = s.reading(func(db *sqlite.DB) error {
		var err error
		files, chunks, err = db.IndexStats(ctx, dir)
		return err
	})
	return files, chunks, err
}
