package sqlite

import (
	"context"
	"errors"
	"sync"
	"time"

	"lathe/orchestrator/session"
)

// Lazy is a session database opened when it is first written to: a
// one-shot run that never reaches the model leaves nothing on disk, not
// even the data directory. It has the methods of DB that a session, its
// checkpoints and its memory use; what only reads finds nothing while no
// database exists, and creates none.
type Lazy struct {
	path string
	opts Options

	mu   sync.Mutex
	done bool // opened (or tried to), or closed: it is not opened again
	db   *DB
	err  error
}

// NewLazy is the database at path, opened with opts when first written
// to.
func NewLazy(path string, opts Options) *Lazy { return &Lazy{path: path, opts: opts} }

func (s *Lazy) open(ctx context.Context) (*DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		s.done = true
		s.db, s.err = Open(ctx, s.path, s.opts)
	}
	return s.db, s.err
}

// opened is the database if it was opened; nil otherwise (it is not
// opened now).
func (s *Lazy) opened() *DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db
}

var errStoreClosed = errors.New("the session store is closed")

// Close closes the database, if it was opened; it is not opened after.
func (s *Lazy) Close() error {
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
// DB.PruneCheckpoints), if the database was opened: a session
// never saved added none, and nothing is opened to prune.
func (s *Lazy) PruneCheckpoints(ctx context.Context, limit int64) (int, error) {
	db := s.opened()
	if db == nil {
		return 0, nil
	}
	return db.PruneCheckpoints(ctx, limit)
}

// with runs fn on the database, opening it first.
func (s *Lazy) with(ctx context.Context, fn func(db *DB) error) error {
	db, err := s.open(ctx)
	if err != nil {
		return err
	}
	return fn(db)
}

// withValue is with for a method with a result.
func withValue[T any](ctx context.Context, s *Lazy, fn func(db *DB) (T, error)) (T, error) {
	db, err := s.open(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(db)
}

func (s *Lazy) CreateSession(ctx context.Context, r session.Record) error {
	return s.with(ctx, func(db *DB) error { return db.CreateSession(ctx, r) })
}

func (s *Lazy) SetTitle(ctx context.Context, id, title string) error {
	return s.with(ctx, func(db *DB) error { return db.SetTitle(ctx, id, title) })
}

func (s *Lazy) SaveMessage(ctx context.Context, id string, m session.Message) error {
	return s.with(ctx, func(db *DB) error { return db.SaveMessage(ctx, id, m) })
}

func (s *Lazy) SaveCompaction(ctx context.Context, id string, c session.Compaction) error {
	return s.with(ctx, func(db *DB) error { return db.SaveCompaction(ctx, id, c) })
}

func (s *Lazy) SaveMode(ctx context.Context, id string, m session.ModeRecord) error {
	return s.with(ctx, func(db *DB) error { return db.SaveMode(ctx, id, m) })
}

func (s *Lazy) StartRun(ctx context.Context, r session.RunStart) (int64, error) {
	return withValue(ctx, s, func(db *DB) (int64, error) { return db.StartRun(ctx, r) })
}

func (s *Lazy) FinishRun(ctx context.Context, runID int64, end session.RunEnd) error {
	return s.with(ctx, func(db *DB) error { return db.FinishRun(ctx, runID, end) })
}

func (s *Lazy) Claim(ctx context.Context, id string) error {
	return s.with(ctx, func(db *DB) error { return db.Claim(ctx, id) })
}

func (s *Lazy) Release(ctx context.Context, id string) error {
	return s.with(ctx, func(db *DB) error { return db.Release(ctx, id) })
}

func (s *Lazy) Delete(ctx context.Context, id string) error {
	return s.with(ctx, func(db *DB) error { return db.Delete(ctx, id) })
}

func (s *Lazy) Load(ctx context.Context, id string) (session.Saved, error) {
	return withValue(ctx, s, func(db *DB) (session.Saved, error) { return db.Load(ctx, id) })
}

// The checkpoints of the session's runs (checkpoint.Store): a run is
// checkpointed once its session is saved, so the database is open by then.

func (s *Lazy) PutBlob(ctx context.Context, data []byte) (string, error) {
	return withValue(ctx, s, func(db *DB) (string, error) { return db.PutBlob(ctx, data) })
}

func (s *Lazy) Blob(ctx context.Context, hash string) ([]byte, error) {
	return withValue(ctx, s, func(db *DB) ([]byte, error) { return db.Blob(ctx, hash) })
}

func (s *Lazy) CreateCheckpoint(ctx context.Context, id string, seq int, at time.Time) (int64, error) {
	return withValue(ctx, s, func(db *DB) (int64, error) { return db.CreateCheckpoint(ctx, id, seq, at) })
}

func (s *Lazy) SaveFileChange(ctx context.Context, cp int64, f session.FileChange) error {
	return s.with(ctx, func(db *DB) error { return db.SaveFileChange(ctx, cp, f) })
}

func (s *Lazy) Checkpoints(ctx context.Context, id string) ([]session.Checkpoint, error) {
	return withValue(ctx, s, func(db *DB) ([]session.Checkpoint, error) { return db.Checkpoints(ctx, id) })
}

func (s *Lazy) UndoRun(ctx context.Context, cp session.Checkpoint, at time.Time) error {
	return s.with(ctx, func(db *DB) error { return db.UndoRun(ctx, cp, at) })
}

func (s *Lazy) RedoRun(ctx context.Context, cp session.Checkpoint) error {
	return s.with(ctx, func(db *DB) error { return db.RedoRun(ctx, cp) })
}

func (s *Lazy) LoadResume(ctx context.Context, id string) (session.Saved, error) {
	return withValue(ctx, s, func(db *DB) (session.Saved, error) { return db.LoadResume(ctx, id) })
}

func (s *Lazy) Messages(ctx context.Context, id string, from, to int) ([]session.Message, error) {
	return withValue(ctx, s, func(db *DB) ([]session.Message, error) { return db.Messages(ctx, id, from, to) })
}
