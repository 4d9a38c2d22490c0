package cli

import (
	"context"
	"errors"
	"sync"
	"time"

	"lathe/orchestrator"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
)

// lazyStore is the session database of a new one-shot session, opened
// when the session is first saved, once the model has answered: a run
// that never reaches the model leaves nothing on disk, not even the
// data directory.
type lazyStore struct {
	path string

	mu   sync.Mutex
	done bool // opened (or tried to), or closed: it is not opened again
	db   *sqlite.DB
	err  error
}

var (
	_ orchestrator.Recorder = (*lazyStore)(nil)
	_ checkpoint.Store      = (*lazyStore)(nil)
)

func (s *lazyStore) open(ctx context.Context) (*sqlite.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		s.done = true
		s.db, s.err = sqlite.Open(ctx, s.path, storeOptions())
	}
	return s.db, s.err
}

// opened is the database if it was opened; nil otherwise (it is not
// opened now).
func (s *lazyStore) opened() *sqlite.DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db
}

var errStoreClosed = errors.New("the session store is closed")

// Close closes the database, if it was opened; it is not opened after.
func (s *lazyStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		s.done, s.err = true, errStoreClosed
	}
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// PruneCheckpoints keeps the checkpoints within limit bytes (see
// sqlite.DB.PruneCheckpoints), if the database was opened: a session
// never saved added none, and nothing is opened to prune.
func (s *lazyStore) PruneCheckpoints(ctx context.Context, limit int64) (int, error) {
	db := s.opened()
	if db == nil {
		return 0, nil
	}
	return db.PruneCheckpoints(ctx, limit)
}

// with runs fn on the database, opening it first.
func (s *lazyStore) with(ctx context.Context, fn func(db *sqlite.DB) error) error {
	db, err := s.open(ctx)
	if err != nil {
		return err
	}
	return fn(db)
}

// withValue is with for a method with a result.
func withValue[T any](ctx context.Context, s *lazyStore, fn func(db *sqlite.DB) (T, error)) (T, error) {
	db, err := s.open(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(db)
}

func (s *lazyStore) CreateSession(ctx context.Context, r session.Record) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.CreateSession(ctx, r) })
}

func (s *lazyStore) SetTitle(ctx context.Context, id, title string) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.SetTitle(ctx, id, title) })
}

func (s *lazyStore) SaveMessage(ctx context.Context, id string, m session.Message) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.SaveMessage(ctx, id, m) })
}

func (s *lazyStore) SaveCompaction(ctx context.Context, id string, c session.Compaction) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.SaveCompaction(ctx, id, c) })
}

func (s *lazyStore) SaveMode(ctx context.Context, id string, m session.ModeRecord) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.SaveMode(ctx, id, m) })
}

func (s *lazyStore) StartRun(ctx context.Context, r session.RunStart) (int64, error) {
	return withValue(ctx, s, func(db *sqlite.DB) (int64, error) { return db.StartRun(ctx, r) })
}

func (s *lazyStore) FinishRun(ctx context.Context, runID int64, end session.RunEnd) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.FinishRun(ctx, runID, end) })
}

func (s *lazyStore) Claim(ctx context.Context, id string) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.Claim(ctx, id) })
}

func (s *lazyStore) Release(ctx context.Context, id string) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.Release(ctx, id) })
}

func (s *lazyStore) Delete(ctx context.Context, id string) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.Delete(ctx, id) })
}

func (s *lazyStore) Load(ctx context.Context, id string) (session.Saved, error) {
	return withValue(ctx, s, func(db *sqlite.DB) (session.Saved, error) { return db.Load(ctx, id) })
}

// The checkpoints of the session's runs (checkpoint.Store): a run is
// checkpointed once its session is saved, so the database is open by then.

func (s *lazyStore) PutBlob(ctx context.Context, data []byte) (string, error) {
	return withValue(ctx, s, func(db *sqlite.DB) (string, error) { return db.PutBlob(ctx, data) })
}

func (s *lazyStore) Blob(ctx context.Context, hash string) ([]byte, error) {
	return withValue(ctx, s, func(db *sqlite.DB) ([]byte, error) { return db.Blob(ctx, hash) })
}

func (s *lazyStore) CreateCheckpoint(ctx context.Context, id string, seq int, at time.Time) (int64, error) {
	return withValue(ctx, s, func(db *sqlite.DB) (int64, error) { return db.CreateCheckpoint(ctx, id, seq, at) })
}

func (s *lazyStore) SaveFileChange(ctx context.Context, cp int64, f session.FileChange) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.SaveFileChange(ctx, cp, f) })
}

func (s *lazyStore) Checkpoints(ctx context.Context, id string) ([]session.Checkpoint, error) {
	return withValue(ctx, s, func(db *sqlite.DB) ([]session.Checkpoint, error) { return db.Checkpoints(ctx, id) })
}

func (s *lazyStore) UndoRun(ctx context.Context, cp session.Checkpoint, at time.Time) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.UndoRun(ctx, cp, at) })
}

func (s *lazyStore) RedoRun(ctx context.Context, cp session.Checkpoint) error {
	return s.with(ctx, func(db *sqlite.DB) error { return db.RedoRun(ctx, cp) })
}
