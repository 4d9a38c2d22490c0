package codeindextest

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"lathe/tools/codeindex"
)

// Exact returns, for each query, the ids of the k chunks of dir's index
// whose stored vectors have the largest cosine with it, best first: the
// labels a quantised search is measured against. It reads every vector
// once and shares the queries between the CPUs.
func Exact(ctx context.Context, store codeindex.Store, dir string, queries [][]float32, k int) ([][]int64, error) {
	ids, err := store.ChunkIDs(ctx, dir)
	if err != nil {
		return nil, err
	}
	tops := make([][]hit, len(queries))
	const batch = 2048
	var bids []int64
	var bvecs [][]float32
	flush := func() {
		parts := min(runtime.GOMAXPROCS(0), len(queries))
		var wg sync.WaitGroup
		for p := range parts {
			wg.Go(func() {
				for q := p; q < len(queries); q += parts {
					for i, v := range bvecs {
						tops[q] = keep(tops[q], hit{bids[i], dot(queries[q], v)}, k)
					}
				}
			})
		}
		wg.Wait()
		bids, bvecs = bids[:0], bvecs[:0]
	}
	err = store.Vectors(ctx, dir, ids, func(id int64, b []byte) error {
		if len(b) != 4*len(queries[0]) {
			return fmt.Errorf("chunk %d: a vector of %d bytes, the queries have %d numbers", id, len(b), len(queries[0]))
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		bids, bvecs = append(bids, id), append(bvecs, v)
		if len(bids) == batch {
			flush()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	flush()
	out := make([][]int64, len(queries))
	for q, t := range tops {
		for _, h := range t {
			out[q] = append(out[q], h.id)
		}
	}
	return out, nil
}

type hit struct {
	id    int64
	score float32
}

// keep adds h to top, kept sorted best first (of equal scores, the
// older chunk first, as the search orders them) and at most k long.
func keep(top []hit, h hit, k int) []hit {
	if len(top) == k && !better(h, top[k-1]) {
		return top
	}
	i, _ := slices.BinarySearchFunc(top, h, func(a, b hit) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	top = slices.Insert(top, i, h)
	return top[:min(len(top), k)]
}

func better(a, b hit) bool {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id)) < 0
}

func dot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Recall is the share of each query's labelled ids found among its
// results (each cut to as many as its labels), over all queries.
func Recall(labels, found [][]int64) float64 {
	var hits, total int
	for q, want := range labels {
		got := found[q][:min(len(found[q]), len(want))]
		for _, id := range want {
			if slices.Contains(got, id) {
				hits++
			}
		}
		total += len(want)
	}
	if total == 0 {
		return 1
	}
	return float64(hits) / float64(total)
}
