// Package sqlitetest opens session databases for the tests of other
// packages.
package sqlitetest

import (
	"path/filepath"
	"testing"

	"lathe/orchestrator/session/sqlite"
)

// Open opens a new database in the test's temporary directory, closed
// when the test ends.
func Open(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "lathe.db"))
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
