package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// ErrNewerSchema is returned by Open for a database whose schema is newer
// than this build knows: a newer lathe wrote it.
var ErrNewerSchema = errors.New("database schema is newer than this lathe")

// migrationFiles holds the schema's migrations, one SQL file per version,
// named by it: 0001_initial.sql is version 1, 0002_... version 2. To
// change the schema, add the next file; never edit one that has shipped.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations returns the SQL of each schema version, version 1 first: the
// step of version N is the file numbered N. A number no file has (its
// migration is made on another line of work, to be merged) is an empty
// step: a database passes through that version unchanged. Reading
// embedded files cannot fail, and a file not named NNNN_*.sql is a bug
// TestMigrationFilesNumbered catches.
func migrations() []string {
	names, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		panic(err)
	}
	var steps []string
	for _, n := range names {
		v, ok := migrationVersion(n.Name())
		if !ok {
			panic("migration file not named NNNN_name.sql: " + n.Name())
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", n.Name()))
		if err != nil {
			panic(err)
		}
		for len(steps) < v-1 {
			steps = append(steps, "")
		}
		steps = append(steps, string(b))
	}
	return steps
}

// migrationVersion is the version a migration file's name gives: its
// first four digits, before an underscore.
func migrationVersion(name string) (int, bool) {
	num, _, ok := strings.Cut(name, "_")
	if !ok || len(num) != 4 || !strings.HasSuffix(name, ".sql") {
		return 0, false
	}
	v, err := strconv.Atoi(num)
	return v, err == nil && v > 0
}

// migrate brings the schema to version len(steps), applying each missing
// step in its own transaction with the version (PRAGMA user_version)
// recorded in the same transaction. An up-to-date database is only read.
func (db *DB) migrate(ctx context.Context, steps []string) error {
	var v int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v == len(steps) {
		return nil
	}
	for {
		done, err := db.migrateOnce(ctx, steps)
		if err != nil || done {
			return err
		}
	}
}

// migrateOnce applies the next missing step, if any. The version is read
// under the write lock, so two processes opening the file at once apply
// each step once.
func (db *DB) migrateOnce(ctx context.Context, steps []string) (done bool, err error) {
	err = db.write(ctx, func(tx *sql.Tx) error {
		var v int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		switch {
		case v > len(steps):
			return fmt.Errorf("%w: version %d, this lathe knows up to %d", ErrNewerSchema, v, len(steps))
		case v == len(steps):
			done = true
			return nil
		}
		if steps[v] != "" { // a number no file has changes nothing
			if _, err := tx.ExecContext(ctx, steps[v]); err != nil {
				return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
			}
		}
		// PRAGMA takes no parameters; v+1 is an int.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			return fmt.Errorf("record schema version %d: %w", v+1, err)
		}
		return nil
	})
	return done, err
}
