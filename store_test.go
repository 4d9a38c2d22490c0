package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"lathe/session"
)

// TestLazyStore: the database and its directory are made by the first
// write, not before (pruning does not open it); once closed, the store
// is not opened again.
func TestLazyStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "lathe")
	s := &lazyStore{path: filepath.Join(dir, "lathe.db")}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the directory exists before any write: %v", err)
	}
	if err := s.CreateSession(t.Context(), session.Record{ID: "s1", Dir: "/w"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.path); err != nil {
		t.Fatalf("no database after the first write: %v", err)
	}
	if _, err := s.PruneCheckpoints(t.Context(), 0); err != nil {
		t.Errorf("pruning an open store: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	unused := &lazyStore{path: filepath.Join(t.TempDir(), "never", "lathe.db")}
	if n, err := unused.PruneCheckpoints(t.Context(), 0); n != 0 || err != nil {
		t.Errorf("pruning a store never opened: %d, %v", n, err)
	}
	if err := unused.Close(); err != nil {
		t.Fatal(err)
	}
	if err := unused.SaveMessage(t.Context(), "s1", session.Message{}); !errors.Is(err, errStoreClosed) {
		t.Errorf("a write after Close: %v, want errStoreClosed", err)
	}
	if _, err := os.Stat(filepath.Dir(unused.path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a store closed unused made its directory: %v", err)
	}
}
