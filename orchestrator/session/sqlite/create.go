package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// create makes a new database at path (0600: conversations are private;
// SQLite gives the -wal and -shm files the same mode) without a window in
// which another process could open it before it is in WAL mode: SQLite
// fails at once, without waiting, when connections race to switch a file
// to WAL. The database is made and migrated under a temporary name, then
// linked to path; if another process linked its own first, that one is
// kept. Where hard links are unsupported, path is left for connect to
// create in place.
func create(ctx context.Context, path string, steps []string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-new-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	if err := tmp.Close(); err != nil {
		return err
	}
	db, err := connect(ctx, name, steps)
	if err != nil {
		return err
	}
	if err := db.Close(); err != nil { // checkpoints and removes the -wal file
		return err
	}
	if err := os.Link(name, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return createInPlace(path)
	}
	return nil
}

// createInPlace makes an empty file at path, with the mode create gives.
func createInPlace(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}
