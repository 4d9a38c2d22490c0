package sqlite

import (
	"errors"
	"os/exec"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

// putLease makes p the holder of session id's lease, taken at acquired.
func putLease(t *testing.T, db *DB, id string, p process, acquired time.Time) {
	t.Helper()
	_, err := db.sql.ExecContext(t.Context(), `INSERT OR REPLACE INTO leases (session_id, pid, started, host, acquired_at)
		VALUES (?, ?, ?, ?, ?)`, id, p.pid, p.started, p.host, acquired.UnixNano())
	if err != nil {
		t.Fatal(err)
	}
}

// holderOf is the process holding session id's lease; false when none.
func holderOf(t *testing.T, db *DB, id string) (process, bool) {
	t.Helper()
	var p process
	err := db.sql.QueryRowContext(t.Context(), `SELECT pid, started, host FROM leases WHERE session_id = ?`, id).
		Scan(&p.pid, &p.started, &p.host)
	if err != nil {
		return p, false
	}
	return p, true
}

// liveProcess starts a process that lives until the test ends, or until
// the returned function kills it and waits for it.
func liveProcess(t *testing.T) (process, func()) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	t.Cleanup(stop)
	return process{pid: cmd.Process.Pid, started: startTime(cmd.Process.Pid), host: self().host}, stop
}

func TestCreateSessionTakesTheLease(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	if p, ok := holderOf(t, db, "s1"); !ok || p != self() {
		t.Fatalf("lease of a new session: %+v, %v; want this process", p, ok)
	}
	if err := db.Claim(t.Context(), "s1"); err != nil {
		t.Errorf("claiming a session this process holds: %v", err)
	}
}

func TestClaim(t *testing.T) {
	live, stop := liveProcess(t)
	if live.started == 0 && startTime(self().pid) != 0 {
		t.Fatal("no start time for a live process")
	}
	tests := []struct {
		name     string
		holder   process
		acquired time.Time
		inUse    bool
	}{
		{"free", process{}, time.Time{}, false},
		{"live process", live, time.Now(), true},
		{"pid gone", process{pid: 1 << 22, started: 5, host: self().host}, time.Now(), false},
		{"pid reused", process{pid: self().pid, started: self().started + 1, host: self().host}, time.Now(), startTime(self().pid) == 0},
		{"another machine", process{pid: 42, host: self().host + "-elsewhere"}, time.Now().Add(-time.Hour), true},
		{"another machine, a day ago", process{pid: 42, host: self().host + "-elsewhere"}, time.Now().Add(-25 * time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openTest(t)
			createSession(t, db, "s1", "/w", day)
			if err := db.Release(t.Context(), "s1"); err != nil {
				t.Fatal(err)
			}
			if tt.holder.pid != 0 {
				putLease(t, db, "s1", tt.holder, tt.acquired)
			}
			err := db.Claim(t.Context(), "s1")
			var inUse *session.InUseError
			if got := errors.As(err, &inUse); got != tt.inUse || !got && err != nil {
				t.Fatalf("Claim: %v; want in use: %v", err, tt.inUse)
			}
			p, _ := holderOf(t, db, "s1")
			if tt.inUse {
				if p != tt.holder || inUse.ID != "s1" || inUse.Holder.PID != tt.holder.pid {
					t.Errorf("the lease changed hands: %+v; error %+v", p, inUse)
				}
				if tt.holder.host != self().host && inUse.Holder.Host != tt.holder.host {
					t.Errorf("the error names host %q, want %q", inUse.Holder.Host, tt.holder.host)
				}
				return
			}
			if p != self() {
				t.Errorf("after the claim the lease is %+v's, want this process's", p)
			}
		})
	}

	// A process that ends leaves a stale lease behind.
	db := openTest(t)
	createSession(t, db, "s2", "/w", day)
	putLease(t, db, "s2", live, time.Now())
	var inUse *session.InUseError
	if err := db.Claim(t.Context(), "s2"); !errors.As(err, &inUse) {
		t.Fatalf("Claim while the holder lives: %v", err)
	}
	stop()
	if err := db.Claim(t.Context(), "s2"); err != nil {
		t.Errorf("Claim after the holder ended: %v", err)
	}
}

func TestReleaseAndClose(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	createSession(t, db, "s2", "/w", day)
	live, _ := liveProcess(t)
	createSession(t, db, "s3", "/w", day)
	putLease(t, db, "s3", live, time.Now())

	if err := db.Release(t.Context(), "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := holderOf(t, db, "s1"); ok {
		t.Error("Release left the lease")
	}
	if err := db.Release(t.Context(), "s3"); err != nil {
		t.Fatal(err)
	}
	if p, ok := holderOf(t, db, "s3"); !ok || p != live {
		t.Errorf("Release gave back another process's lease: %+v, %v", p, ok)
	}
	path := db.path
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := openSteps(t, path, migrations())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := holderOf(t, again, "s2"); ok {
		t.Error("Close left the lease of s2")
	}
	if p, ok := holderOf(t, again, "s3"); !ok || p != live {
		t.Errorf("Close gave back another process's lease: %+v, %v", p, ok)
	}
}

func TestDeleteAndPrune(t *testing.T) {
	db := openTest(t)
	live, _ := liveProcess(t)
	old := time.Now().Add(-40 * 24 * time.Hour)
	for _, s := range []struct {
		id, dir string
		at      time.Time
	}{{"old1", "/a", old}, {"old2", "/b", old}, {"busy", "/a", old}, {"new", "/a", time.Now()}} {
		createSession(t, db, s.id, s.dir, s.at)
		if err := db.SaveMessage(t.Context(), s.id, session.Message{Created: s.at}); err != nil {
			t.Fatal(err)
		}
	}
	putLease(t, db, "busy", live, time.Now())

	n, err := db.Prune(t.Context(), "/a", time.Now().Add(-30*24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("Prune in /a: %d, %v; want 1", n, err)
	}
	for id, want := range map[string]bool{"old1": false, "old2": true, "busy": true, "new": true} {
		_, err := db.Load(t.Context(), id)
		if got := err == nil; got != want {
			t.Errorf("after Prune, %s kept = %v (%v), want %v", id, got, err, want)
		}
	}
	var msgs int
	db.sql.QueryRowContext(t.Context(), `SELECT count(*) FROM messages WHERE session_id = 'old1'`).Scan(&msgs)
	if msgs != 0 {
		t.Errorf("the pruned session's %d messages are left", msgs)
	}
	if n, err := db.Prune(t.Context(), "", time.Now().Add(-30*24*time.Hour)); err != nil || n != 1 {
		t.Errorf("Prune everywhere: %d, %v; want 1 (old2)", n, err)
	}

	var inUse *session.InUseError
	if err := db.Delete(t.Context(), "busy"); !errors.As(err, &inUse) {
		t.Errorf("Delete of a session in use: %v", err)
	}
	if err := db.Delete(t.Context(), "new"); err != nil {
		t.Errorf("Delete: %v", err)
	}
	if _, err := db.Load(t.Context(), "new"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Load after Delete: %v", err)
	}
	if err := db.Delete(t.Context(), "new"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Delete twice: %v", err)
	}
}
