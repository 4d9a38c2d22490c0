package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"lathe/orchestrator/session"
)

// A session is used by one lathe process at a time: the process holding
// its lease, a row of the leases table naming it (pid, start time, host).
// CreateSession takes the lease of the session it creates; Claim takes an
// existing session's, unless a live process holds it; Release and Close
// give leases back. A process that dies keeps its leases, but they are
// stale: its pid is gone, or is now another process's (its start time
// differs), and the next Claim takes them over.

// process identifies a lathe process.
type process struct {
	pid     int
	started int64 // as the OS counts it (see startTime); 0 when unknown
	host    string
}

// self is this process, asked of the system once a lease needs it rather
// than at every start.
var self = sync.OnceValue(func() process {
	host, _ := os.Hostname()
	return process{pid: os.Getpid(), started: startTime(os.Getpid()), host: host}
})

// foreignStale is how old a lease taken on another machine (a database on
// a shared home) must be for it to be taken for stale: whether its process
// lives cannot be checked from here.
const foreignStale = 24 * time.Hour

// alive reports whether the process holding a lease, taken at acquired,
// may still be running.
func (p process) alive(acquired time.Time) bool {
	if p.host != self().host {
		return time.Since(acquired) < foreignStale
	}
	if p == self() {
		return true
	}
	if err := syscall.Kill(p.pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if p.started != 0 {
		if now := startTime(p.pid); now != 0 && now != p.started {
			return false // the pid was reused
		}
	}
	return true
}

// claim takes the lease of session id for this process in tx, unless a
// live process other than this one holds it (*session.InUseError).
func claim(ctx context.Context, tx *sql.Tx, id string) error {
	var (
		holder   process
		acquired int64
	)
	err := tx.QueryRowContext(ctx, `SELECT pid, started, host, acquired_at FROM leases WHERE session_id = ?`, id).
		Scan(&holder.pid, &holder.started, &holder.host, &acquired)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	case holder == self():
		return nil
	case holder.alive(unstamp(acquired)):
		h := session.Holder{PID: holder.pid, Since: unstamp(acquired)}
		if holder.host != self().host {
			h.Host = holder.host
		}
		return &session.InUseError{ID: id, Holder: h}
	}
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO leases (session_id, pid, started, host, acquired_at)
		VALUES (?, ?, ?, ?, ?)`, id, self().pid, self().started, self().host, stamp(time.Time{}))
	return sessionMissing(err)
}

// Claim makes this process the one using session id: it fails with a
// *session.InUseError while another live lathe process uses it. Claiming
// a session this process holds already succeeds.
func (db *DB) Claim(ctx context.Context, id string) error {
	err := db.write(ctx, func(tx *sql.Tx) error { return claim(ctx, tx, id) })
	var inUse *session.InUseError
	if errors.As(err, &inUse) {
		return err // it names the session
	}
	if err != nil {
		return fmt.Errorf("claim session %s: %w", id, err)
	}
	db.held.Store(id, true)
	return nil
}

// Release gives back this process's lease of session id, if it holds it.
func (db *DB) Release(ctx context.Context, id string) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE session_id = ? AND pid = ? AND started = ? AND host = ?`,
			id, self().pid, self().started, self().host)
		return err
	})
	if err != nil {
		return fmt.Errorf("release session %s: %w", id, err)
	}
	db.held.Delete(id)
	return nil
}

// releaseAll gives back every lease this DB took.
func (db *DB) releaseAll() error {
	var errs []error
	db.held.Range(func(id, _ any) bool {
		errs = append(errs, db.Release(context.Background(), id.(string)))
		return true
	})
	return errors.Join(errs...)
}
