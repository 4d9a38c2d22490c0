package codeindex_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/session/sqlite"
	"lathe/tools/codeindex"
	"lathe/tools/codeindex/codeindextest"
)

// scaleLabels is what scripts/genindex writes beside the index it builds.
type scaleLabels struct {
	Seed    uint64    `json:"seed"`
	Chunks  int       `json:"chunks"`
	Dir     string    `json:"dir"`
	Model   string    `json:"model"`
	K       int       `json:"k"`
	Queries [][]int64 `json:"queries"`
}

// BenchmarkSearchAtScale measures searches of an index built by
// scripts/genindex (a million chunks by default) in the directory
// LATHE_CODEINDEX_SCALE names; skipped without it. Each operation is one
// query of the labelled ones, in turn: "vectors" is the half of a search
// that compares vectors, "search" the whole search (the words' half, the
// fusion, the chunks read). It reports the median time of a query
// (p50-ms), the recall@10 of the vectors' half against the exact search
// genindex labelled (recall@10), the first search's time, which reads
// every vector (cold-s), the memory the searcher keeps (heap-MiB: the
// live heap it added, measured after a collection) and the process's
// resident memory (rss-MiB: the benchmark's own, the database's cache
// and the Go runtime's included).
//
//	go run ./scripts/genindex /tmp/scale
//	LATHE_CODEINDEX_SCALE=/tmp/scale go test -run X -bench SearchAtScale -benchtime 200x ./tools/codeindex/
func BenchmarkSearchAtScale(b *testing.B) {
	dir := os.Getenv("LATHE_CODEINDEX_SCALE")
	if dir == "" {
		b.Skip("LATHE_CODEINDEX_SCALE names no index built by scripts/genindex")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		b.Fatal(err)
	}
	var l scaleLabels
	if err := json.Unmarshal(raw, &l); err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(b.Context(), filepath.Join(dir, "lathe.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	space := codeindextest.NewSpace(l.Seed, l.Chunks, codeindextest.Dims)
	emb := codeindextest.Embedder{Space: space}
	heapBefore := liveHeap()
	s := codeindex.NewSearcher(db, emb)
	start := time.Now()
	if _, err := codeindex.Nearest(b.Context(), s, l.Dir, space.Query(0), l.K); err != nil {
		b.Fatal(err)
	}
	cold := time.Since(start)
	heap := liveHeap() - heapBefore
	b.Run("vectors", func(b *testing.B) {
		found := make([][]int64, len(l.Queries))
		var took []time.Duration
		for j := 0; b.Loop(); j++ {
			q := j % len(l.Queries)
			start := time.Now()
			ids, err := codeindex.Nearest(b.Context(), s, l.Dir, space.Query(q), l.K)
			took = append(took, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			found[q] = ids
		}
		n := min(len(took), len(l.Queries))
		b.ReportMetric(codeindextest.Recall(l.Queries[:n], found[:n]), "recall@10")
		reportScale(b, took, cold, heap)
	})
	b.Run("search", func(b *testing.B) {
		var took []time.Duration
		for j := 0; b.Loop(); j++ {
			start := time.Now()
			res, err := s.Search(b.Context(), codeindex.Query{Dir: l.Dir, Text: codeindextest.QueryText(j % len(l.Queries))})
			took = append(took, time.Since(start))
			if err != nil || len(res) == 0 {
				b.Fatal(len(res), err)
			}
		}
		reportScale(b, took, cold, heap)
	})
}

func reportScale(b *testing.B, took []time.Duration, cold time.Duration, heap uint64) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(cold.Seconds(), "cold-s")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
	if rss := residentSet(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "rss-MiB")
	}
}

// residentSet is the process's resident memory (Linux's VmRSS), 0 where
// /proc does not tell it.
func residentSet() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
