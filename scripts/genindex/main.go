// Command genindex builds a synthetic code index to measure code search
// at scale, deterministic by seed, and says what building it cost:
//
//	genindex [-chunks 1000000] [-seed 1] [-queries 100] DIR
//
// It writes DIR/tree, Go files of 50 functions each (one chunk a
// function; see codeindextest.WriteTree), indexes it into DIR/lathe.db
// with lathe's own update and an embedder that answers at once with
// clustered vectors (codeindextest.Space), then edits one file in a
// hundred and brings the index up to date again, then once more with
// nothing changed. It prints the chunks a second of the build and of the
// update (the model's time left out: reading, cutting, hashing, storing)
// and the database's size per 1,000 chunks, and writes DIR/labels.json:
// what an exact search finds for each query, which BenchmarkSearchAtScale
// (tools/codeindex) measures the search against. DIR/lathe.db and
// DIR/tree are replaced.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"lathe/orchestrator/session/sqlite"
	"lathe/tools"
	"lathe/tools/codeindex"
	"lathe/tools/codeindex/codeindextest"
)

// funcsPerFile is how many chunks each file of the tree holds.
const funcsPerFile = 50

func main() {
	chunks := flag.Int("chunks", 1_000_000, "chunks in the index")
	seed := flag.Uint64("seed", 1, "the seed everything is made from")
	queries := flag.Int("queries", 100, "labelled queries")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genindex [-chunks N] [-seed S] [-queries Q] DIR")
		os.Exit(2)
	}
	if err := run(context.Background(), flag.Arg(0), *chunks, *seed, *queries); err != nil {
		fmt.Fprintln(os.Stderr, "genindex:", err)
		os.Exit(1)
	}
}

// Labels are what an exact search of the index finds for its queries.
type Labels struct {
	Seed    uint64    `json:"seed"`
	Chunks  int       `json:"chunks"` // the space's size (codeindextest.NewSpace)
	Dir     string    `json:"dir"`    // the index's key: the tree's directory
	Model   string    `json:"model"`
	K       int       `json:"k"`
	Queries [][]int64 `json:"queries"` // by query number, the ids best first
}

func run(ctx context.Context, dir string, chunks int, seed uint64, queries int) error {
	tree, dbPath := filepath.Join(dir, "tree"), filepath.Join(dir, "lathe.db")
	files := (chunks + funcsPerFile - 1) / funcsPerFile
	for _, p := range []string{tree, dbPath, dbPath + "-wal", dbPath + "-shm"} {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	start := time.Now()
	if err := codeindextest.WriteTree(tree, seed, files, funcsPerFile); err != nil {
		return err
	}
	fmt.Printf("tree: %d files written in %s\n", files, time.Since(start).Round(time.Millisecond))
	ws, err := tools.OpenWorkspace(tree)
	if err != nil {
		return err
	}
	defer ws.Close()
	db, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	space := codeindextest.NewSpace(seed, chunks, codeindextest.Dims)
	opts := codeindex.Options{Dir: ws.Dir(), Root: ws.Root(), List: ws.Files, Store: db,
		Embedder: codeindextest.Embedder{Space: space}, Model: "bench", MaxFiles: files, MaxChunks: chunks}
	if err := update(ctx, "build", opts, 0); err != nil {
		return err
	}
	for i := 0; i < files; i += 100 {
		if err := codeindextest.WriteTreeFile(tree, seed, i, funcsPerFile, 1); err != nil {
			return err
		}
	}
	if err := update(ctx, "update, 1% of the files edited", opts, (files+99)/100); err != nil {
		return err
	}
	if err := update(ctx, "update, nothing changed", opts, 0); err != nil {
		return err
	}
	if err := report(ctx, db, dbPath, ws.Dir()); err != nil {
		return err
	}
	return label(ctx, db, dir, ws.Dir(), space, Labels{Seed: seed, Chunks: chunks, Dir: ws.Dir(), Model: "bench", K: 10}, queries)
}

// update brings the index up to date and says what it did, in how long;
// edited is how many files it should have read again.
func update(ctx context.Context, what string, opts codeindex.Options, edited int) error {
	start := time.Now()
	st, err := codeindex.Update(ctx, opts)
	took := time.Since(start)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if edited > 0 && st.Indexed != edited {
		return fmt.Errorf("%s: %d files read again, not %d", what, st.Indexed, edited)
	}
	fmt.Printf("%s: %d chunks embedded of %d in %s (%.0f chunks/s), %d files unchanged\n",
		what, st.Embedded, st.Chunks, took.Round(time.Millisecond), float64(st.Embedded)/took.Seconds(), st.Unchanged)
	return nil
}

// report prints the database's size per 1,000 chunks (its write-ahead
// log, which holds at most the last thousand pages, included).
func report(ctx context.Context, db *sqlite.DB, path, dir string) error {
	var size int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			size += fi.Size()
		}
	}
	_, chunks, err := db.IndexStats(ctx, dir)
	if err != nil {
		return err
	}
	fmt.Printf("database: %.2f GiB, %.2f MiB per 1,000 chunks\n", float64(size)/(1<<30),
		float64(size)/float64(chunks)*1000/(1<<20))
	return nil
}

// label writes what an exact search finds for each query.
func label(ctx context.Context, db *sqlite.DB, out, dir string, space *codeindextest.Space, l Labels, queries int) error {
	start := time.Now()
	qs := make([][]float32, queries)
	for j := range qs {
		qs[j] = space.Query(j)
	}
	var err error
	if l.Queries, err = codeindextest.Exact(ctx, db, dir, qs, l.K); err != nil {
		return err
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	fmt.Printf("labels: %d queries searched exactly in %s\n", queries, time.Since(start).Round(time.Millisecond))
	return os.WriteFile(filepath.Join(out, "labels.json"), b, 0o644)
}
