// Package sqlitetest opens session databases for the tests of other
// packages.
package sqlitetest

import (
	"path/filepath"
	"testing"

	"lathe/orchestrator/session/sqlite"
)

// Open opens a new database in the test's temporary directory, closed
// when the test ends. It is told no note prefix: see OpenWith.
func Open(t testing.TB) *sqlite.DB {
	t.Helper()
	return OpenWith(t, sqlite.Options{})
}

// OpenWith is Open with opts: a test of what leaves lathe's notes out
// gives their prefix.
func OpenWith(t testing.TB, opts sqlite.Options) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "lathe.db"), opts)
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
