package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

// TestLazyStore: the database and its directory are made by the first
// write, not before (pruning does not open it); once closed, the store
// is not opened again.
func TestLazyStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "lathe")
	s := NewLazy(filepath.Join(dir, "lathe.db"), Options{})
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

	unused := NewLazy(filepath.Join(t.TempDir(), "never", "lathe.db"), Options{})
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

// TestLazyStoreReads: reading a store with no database finds nothing and
// makes none; once a write opened it, reads find what was written, and
// reads after the database file is gone (from the open one) still do.
func TestLazyStoreReads(t *testing.T) {
	ctx := t.Context()
	s := NewLazy(filepath.Join(t.TempDir(), "data", "lathe.db"), Options{})
	defer s.Close()
	if facts, err := s.Facts(ctx, "/w"); len(facts) != 0 || err != nil {
		t.Errorf("facts of no database: %v, %v", facts, err)
	}
	if files, err := s.IndexedFiles(ctx, "/w"); files == nil || len(files) != 0 || err != nil {
		t.Errorf("indexed files of no database: %v, %v; want an empty map", files, err)
	}
	if counts, err := s.WordCounts(ctx, []string{"parse"}, 10); counts == nil || len(counts) != 0 || err != nil {
		t.Errorf("word counts of no database: %v, %v; want an empty map", counts, err)
	}
	if hits, err := s.Search(ctx, session.SearchQuery{Text: "fact"}); len(hits) != 0 || err != nil {
		t.Errorf("search of no database: %v, %v", hits, err)
	}
	if _, err := os.Stat(filepath.Dir(s.path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reads made the data directory: %v", err)
	}

	if _, err := s.AddFact(ctx, "/w", "tests run with go test", time.Time{}); err != nil {
		t.Fatal(err)
	}
	facts, err := s.Facts(ctx, "/w")
	if err != nil || len(facts) != 1 || facts[0].Text != "tests run with go test" {
		t.Fatalf("facts after AddFact: %v, %v", facts, err)
	}
	if err := os.Remove(s.path); err != nil {
		t.Fatal(err)
	}
	if facts, err := s.Facts(ctx, "/w"); err != nil || len(facts) != 1 {
		t.Errorf("facts of the open database, its file removed: %v, %v", facts, err)
	}
}
