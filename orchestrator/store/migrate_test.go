package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator"
)

// addPinned is a test-only second schema version.
const addPinned = `ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_pinned ON sessions (pinned);`

func openSteps(t *testing.T, path string, steps []string) (*DB, error) {
	t.Helper()
	db, err := open(t.Context(), path, steps)
	if err == nil {
		t.Cleanup(func() { db.Close() })
	}
	return db, err
}

func schemaVersion(t *testing.T, db *DB) int {
	t.Helper()
	var v int
	if err := db.sql.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrateEmptyFile(t *testing.T) {
	db := openTest(t)
	if got, want := schemaVersion(t, db), len(migrations()); got != want || want < 1 {
		t.Errorf("schema version %d, want %d", got, want)
	}
	var tables int
	err := db.sql.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema
		WHERE type = 'table' AND name IN ('sessions', 'messages', 'compactions', 'runs')`).Scan(&tables)
	if err != nil || tables != 4 {
		t.Errorf("%d of the 4 tables, %v", tables, err)
	}
}

func TestMigrateKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	v1 := migrations()[:1]
	old, err := openSteps(t, path, v1)
	if err != nil {
		t.Fatal(err)
	}
	createSession(t, old, "s1", "/w", day)
	m := orchestrator.StoredMessage{Message: api.Message{Role: "user", Content: "kept"}}
	if err := old.SaveMessage(t.Context(), "s1", m); err != nil {
		t.Fatal(err)
	}
	old.Close()

	steps := append(append([]string{}, migrations()...), addPinned)
	db, err := openSteps(t, path, steps)
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaVersion(t, db); got != len(steps) {
		t.Errorf("schema version %d, want %d", got, len(steps))
	}
	saved, err := db.LoadSession(t.Context(), "s1")
	if err != nil || len(saved.Messages) != 1 || saved.Messages[0].Message.Content != "kept" {
		t.Fatalf("after migrating: %+v, %v", saved.Messages, err)
	}
	var pinned int
	if err := db.sql.QueryRowContext(t.Context(), `SELECT pinned FROM sessions WHERE id = 's1'`).Scan(&pinned); err != nil {
		t.Errorf("the new column: %v", err)
	}
}

func TestMigrateFailureRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	v1 := migrations()[:1]
	old, err := openSteps(t, path, v1)
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	broken := append(append([]string{}, v1...), `CREATE TABLE half (a INTEGER); SELEKT 1;`)
	if _, err := openSteps(t, path, broken); err == nil {
		t.Fatal("a broken migration succeeded")
	}
	db, err := openSteps(t, path, v1)
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaVersion(t, db); got != 1 {
		t.Errorf("schema version %d after a failed migration, want 1", got)
	}
	var n int
	db.sql.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema WHERE name = 'half'`).Scan(&n)
	if n != 0 {
		t.Error("the failed migration's first statement was kept")
	}
}

func TestMigrateRefusesNewer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	newer, err := openSteps(t, path, append(append([]string{}, migrations()...), addPinned))
	if err != nil {
		t.Fatal(err)
	}
	newer.Close()
	if _, err := openSteps(t, path, migrations()); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("opening a newer database: %v, want ErrNewerSchema", err)
	}
}

// TestMigrationFilesNumbered: a file's place in the list is its version,
// so the names must count 0001, 0002... without gaps.
func TestMigrationFilesNumbered(t *testing.T) {
	files, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if want := fmt.Sprintf("%04d_", i+1); !strings.HasPrefix(f.Name(), want) || !strings.HasSuffix(f.Name(), ".sql") {
			t.Errorf("migration %d is %s, want %s*.sql", i+1, f.Name(), want)
		}
	}
	if len(files) != len(migrations()) {
		t.Errorf("%d files, %d migrations", len(files), len(migrations()))
	}
}

// TestConcurrentFirstOpens: lathes started at once on a new file each
// migrate it or find it migrated, once. (Racing connections switching a
// file to WAL fail at once with SQLITE_BUSY: see create.)
func TestConcurrentFirstOpens(t *testing.T) {
	const rounds, opens = 10, 6
	steps := append(append([]string{}, migrations()...), addPinned) // addPinned fails if run twice
	for range rounds {
		path := filepath.Join(t.TempDir(), "lathe.db")
		var wg sync.WaitGroup
		for range opens {
			wg.Go(func() { openAndCheck(t, path, steps) })
		}
		wg.Wait()
	}
}

func openAndCheck(t *testing.T, path string, steps []string) {
	db, err := open(t.Context(), path, steps)
	if err != nil {
		t.Error(err)
		return
	}
	defer db.Close()
	var v int
	if err := db.sql.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&v); err != nil || v != len(steps) {
		t.Errorf("schema version %d, %v; want %d", v, err, len(steps))
	}
}
