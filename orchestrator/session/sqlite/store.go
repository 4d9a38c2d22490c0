// Package sqlite keeps lathe's sessions, messages and runs in a SQLite
// database: it is the agent's Recorder and the session catalogue.
//
// The database runs in WAL mode: readers never wait for the writer, and a
// transaction that has committed survives the process being killed. Every
// write is one transaction; writes from one *DB are serialised in process
// and take SQLite's write lock up front (BEGIN IMMEDIATE), so that two
// lathe processes sharing the file wait for each other (busy timeout)
// instead of failing.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"lathe/orchestrator/session"
)

var _ session.Catalog = (*DB)(nil)

// busyTimeout is how long a statement waits for another connection's lock
// (another lathe process writing, a checkpoint) before failing.
const busyTimeout = 5 * time.Second

// maxConns bounds the pool: one writer at a time plus concurrent readers.
const maxConns = 8

// DB is a lathe database. It is safe for concurrent use.
type DB struct {
	sql  *sql.DB
	path string
	// writeSlot holds one token: the right to run a write transaction.
	writeSlot chan struct{}
	held      sync.Map // the ids of the sessions whose lease this DB took
	opts      Options
}

// Options are what a DB is told of the messages it keeps.
type Options struct {
	// NotePrefix starts the user messages lathe wrote in the user's place
	// (prompts.NotePrefix): the prompts listed (Prompts) and the messages
	// searched (Search) leave them out. Empty leaves nothing out.
	NotePrefix string
}

// Open opens the database at path, creating it and its directory (0700)
// if needed, and brings its schema up to date. It fails with
// ErrNewerSchema when the file was written by a newer lathe.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	db, err := open(ctx, path, migrations())
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.opts = opts
	return db, nil
}

// open is Open with the schema's migrations given (tests add versions):
// it opens path, creating it (see create) if it does not exist.
func open(ctx context.Context, path string, steps []string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		if err := create(ctx, abs, steps); err != nil {
			return nil, err
		}
	}
	return connect(ctx, abs, steps)
}

// connect opens the pool on the database file at path and migrates it.
func connect(ctx context.Context, path string, steps []string) (*DB, error) {
	sdb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, err
	}
	sdb.SetMaxOpenConns(maxConns)
	sdb.SetMaxIdleConns(maxConns)
	db := &DB{sql: sdb, path: path, writeSlot: make(chan struct{}, 1)}
	if err := db.migrate(ctx, steps); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// dsn is the data source name for path, with the pragmas every pooled
// connection gets:
//   - journal_mode=WAL: readers see the last committed state while a
//     write is under way, and a commit is an append to the -wal file.
//   - synchronous=NORMAL: in WAL mode a commit is written to the -wal
//     file (the OS's page cache) before COMMIT returns, so killing the
//     process (kill -9, a panic) loses nothing committed; only a power
//     loss or OS crash may roll back the last commits, never corrupting
//     the file. FULL would fsync every message for power-loss safety.
//   - busy_timeout: wait for another connection's lock instead of
//     failing at once with SQLITE_BUSY.
//   - foreign_keys=ON: messages, compactions, modes and runs need their
//     session.
//
// _txlock=immediate makes write transactions take the write lock at
// BEGIN, where the busy timeout applies; read-only transactions stay
// deferred (the driver ignores _txlock for them).
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// Close gives back the leases this DB took and closes the database. The
// last connection to close checkpoints the write-ahead log into the file.
func (db *DB) Close() error {
	lerr := db.releaseAll()
	if err := db.sql.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", db.path, err)
	}
	return lerr
}

// write runs fn in a write transaction and commits it, waiting for this
// DB's other writes first.
func (db *DB) write(ctx context.Context, fn func(*sql.Tx) error) error {
	select {
	case db.writeSlot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-db.writeSlot }()
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// read runs fn in a read-only transaction: everything it reads comes from
// one snapshot of the database.
func (db *DB) read(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}
