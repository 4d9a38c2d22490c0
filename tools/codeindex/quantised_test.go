package codeindex_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools/codeindex"
	"lathe/tools/codeindex/codeindextest"
)

// storeSpace stores n chunks of space's vectors, 100 a file, in the index
// of dir.
func storeSpace(t testing.TB, db *sqlite.DB, dir string, space *codeindextest.Space, n int) {
	t.Helper()
	ctx := t.Context()
	if err := db.ResetIndex(ctx, dir, "bench", time.Now()); err != nil {
		t.Fatal(err)
	}
	for f := 0; f*100 < n; f++ {
		var chunks []codeindex.Embedded
		for c := 0; c < 100 && f*100+c < n; c++ {
			ch := codeindex.Chunk{Path: fmt.Sprintf("f%d.go", f), Start: c + 1, End: c + 1, Text: "x"}
			chunks = append(chunks, codeindex.Embedded{Chunk: ch, Vector: space.Vector(uint64(f*100 + c))})
		}
		file := codeindex.File{Path: fmt.Sprintf("f%d.go", f), Hash: fmt.Sprint(f), Size: 1, MTime: time.Now()}
		if err := db.PutFiles(ctx, dir, []codeindex.FileChunks{{File: file, Chunks: chunks}}); err != nil {
			t.Fatal(err)
		}
	}
}

// unsigned is a store that holds no signs, as one made before they were.
type unsigned struct{ codeindex.Store }

func (unsigned) VectorSigns(context.Context, string, []int64, func(int64, int, []byte) error) error {
	return nil
}

// TestQuantisedSearchFindsTheExactBest checks the vector half of a search
// against an exact search of every stored vector, on 20,000 chunks in
// clusters as a model's are: the quantised search must find at least 95%
// of the exact ten best of each query, and rank what it finds as the
// exact search does.
func TestQuantisedSearchFindsTheExactBest(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 20,000 vectors")
	}
	const n, queries, k = 20_000, 40, 10
	db, dir := sqlitetest.Open(t), "/test/project"
	space := codeindextest.NewSpace(7, n, codeindextest.Dims)
	storeSpace(t, db, dir, space, n)
	qs := make([][]float32, queries)
	for j := range qs {
		qs[j] = space.Query(j)
	}
	exact, err := codeindextest.Exact(t.Context(), db, dir, qs, k)
	if err != nil {
		t.Fatal(err)
	}
	s := codeindex.NewSearcher(db, codeindextest.Embedder{Space: space})
	found := make([][]int64, queries)
	for j, q := range qs {
		if found[j], err = codeindex.Nearest(t.Context(), s, dir, q, k); err != nil {
			t.Fatal(err)
		}
	}
	// An index made before the signs were stored: its vectors are read
	// whole and come to the same.
	old := codeindex.NewSearcher(unsigned{db}, codeindextest.Embedder{Space: space})
	for j, q := range qs {
		got, err := codeindex.Nearest(t.Context(), old, dir, q, k)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(found[j]) {
			t.Fatalf("query %d: %v from the stored signs, %v from the vectors", j, found[j], got)
		}
	}
	recall := codeindextest.Recall(exact, found)
	if recall < 0.95 {
		t.Errorf("recall@10 %.3f against an exact search, want 0.95 or more", recall)
	}
	same := 0
	for j := range exact {
		if fmt.Sprint(exact[j]) == fmt.Sprint(found[j]) {
			same++
		}
	}
	if same < queries*3/4 {
		t.Errorf("the same ten best, in the same order, for %d queries of %d", same, queries)
	}
	t.Logf("recall@10 %.3f; %d of %d queries found exactly", recall, same, queries)
}
