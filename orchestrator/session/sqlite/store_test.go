package sqlite

import (
	"context"
	"errors"
	"io"
	"lathe/orchestrator"
	"lathe/orchestrator/session"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// openTest opens a database in a new directory, closed when the test ends.
// notePrefix starts the notes of the tests' databases.
const notePrefix = "[note] "

func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "data", "lathe", "lathe.db"), Options{NotePrefix: notePrefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

// day is a fixed time with nanoseconds, in a zone other than UTC.
var day = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600))

func createSession(t testing.TB, db *DB, id, dir string, created time.Time) {
	t.Helper()
	rec := session.Record{ID: id, Title: "title " + id, Dir: dir, Model: "qwen3:8b", Created: created}
	if err := db.CreateSession(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "lathe.db")
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	createSession(t, db, "s1", "/w", day) // makes the -wal file
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{{dir, 0o700 | os.ModeDir}, {path, 0o600}, {path + "-wal", 0o600}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != c.mode {
			t.Errorf("%s: mode %v, want %v", c.path, fi.Mode(), c.mode)
		}
	}
}

// TestNewFileIsWAL: a new database appears at its path already in WAL
// mode (file format bytes 18 and 19 are 2), so that no process opening
// it races to convert it.
func TestNewFileIsWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	header := make([]byte, 20)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, header); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if header[18] != 2 || header[19] != 2 {
		t.Errorf("file format bytes %d %d, want 2 2 (WAL)", header[18], header[19])
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Errorf("files left behind: %v", left)
	}
}

// TestOpenEmptyFile: an empty file at the path is a new database.
func TestOpenEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	createSession(t, db, "s1", "/w", day)
	var mode string
	if err := db.sql.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q, %v; want wal", mode, err)
	}
}

// TestOpenOddPaths: the path is passed to SQLite as a URI; characters
// that mean something in one must not change the file opened.
func TestOpenOddPaths(t *testing.T) {
	for _, name := range []string{"a b.db", "what?.db", "x#y.db", "100%.db", "ünï.db", "semi;colon&amp.db"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dir with space", name)
			db, err := Open(t.Context(), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			createSession(t, db, "s1", "/w", day)
			db.Close()
			if _, err := os.Stat(path); err != nil {
				t.Errorf("database not at its path: %v", err)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("files next to it: %v", entries)
			}
		})
	}
}

func TestOpenRejectsOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	if err := os.WriteFile(path, []byte("not a database, just some text that is long enough"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(t.Context(), path, Options{})
	if err == nil {
		db.Close()
		t.Fatal("Open of a text file succeeded")
	}
}

// TestPragmas checks that every pooled connection, not only the first,
// gets the DSN's pragmas.
func TestPragmas(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	want := map[string]string{"journal_mode": "wal", "synchronous": "1", "foreign_keys": "1", "busy_timeout": "5000"}
	var conns []interface{ Close() error }
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 3 {
		c, err := db.sql.Conn(ctx) // held open: each is a distinct connection
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		for name, w := range want {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+name).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != w {
				t.Errorf("connection %d: %s = %s, want %s", i, name, got, w)
			}
		}
	}
}

func TestWriteHonoursContext(t *testing.T) {
	db := openTest(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := db.CreateSession(ctx, session.Record{ID: "abcd", Dir: "/w"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CreateSession with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := db.Load(t.Context(), "abcd"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("session written despite the cancelled context: %v", err)
	}
}

// DB is the agent's Recorder (asserted here, so that the store does not
// depend on the agent).
var _ orchestrator.Recorder = (*DB)(nil)
