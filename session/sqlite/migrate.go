package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"path"
)

// ErrNewerSchema is returned by Open for a database whose schema is newer
// than this build knows: a newer lathe wrote it.
var ErrNewerSchema = errors.New("database schema is newer than this lathe")

// migrationFiles holds the schema's migrations, one SQL file per version,
// applied in the order of their names (0001_initial.sql, 0002_...). To
// change the schema, add the next file; never edit one that has shipped.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations returns the SQL of each schema version, version 1 first
// (ReadDir sorts by name). Reading embedded files cannot fail.
func migrations() []string {
	names, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		panic(err)
	}
	var steps []string
	for _, n := range names {
		b, err := migrationFiles.ReadFile(path.Join("migrations", n.Name()))
		if err != nil {
			panic(err)
		}
		steps = append(steps, string(b))
	}
	return steps
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
		if _, err := tx.ExecContext(ctx, steps[v]); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
		// PRAGMA takes no parameters; v+1 is an int.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			return fmt.Errorf("record schema version %d: %w", v+1, err)
		}
		return nil
	})
	return done, err
}
