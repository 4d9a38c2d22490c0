package codeindex

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"sync"
)

// EncodeVector is v as stored: little-endian float32s.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

var errVector = errors.New("a stored vector has a length that is not a whole number of float32s")

// decodeVector appends the vector stored in b to dst.
func decodeVector(dst []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return dst, errVector
	}
	for i := 0; i < len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst, nil
}

// dot is the dot product of a and b, which have the same length: their
// cosine, for vectors of unit length.
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

// scored is a chunk's id with its score.
type scored struct {
	id    int64
	score float32
}

// topK keeps the k best of the scores it is given (a min-heap: the worst
// kept is at the root).
type topK struct {
	k    int
	heap scoredHeap
}

func (t *topK) add(id int64, s float32) {
	switch {
	case len(t.heap) < t.k:
		heap.Push(&t.heap, scored{id, s})
	case s > t.heap[0].score:
		t.heap[0] = scored{id, s}
		heap.Fix(&t.heap, 0)
	}
}

// best returns what was kept, best first.
func (t *topK) best() []scored {
	out := make([]scored, len(t.heap))
	h := append(scoredHeap(nil), t.heap...)
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(scored)
	}
	return out
}

type scoredHeap []scored

func (h scoredHeap) Len() int { return len(h) }
func (h scoredHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	return h[i].id > h[j].id // of equal scores, the older chunk wins
}
func (h scoredHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *scoredHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// matrix is a project's vectors, row by row, in memory.
type matrix struct {
	dims int
	ids  []int64
	rows []float32 // len(ids) × dims
}

// nearest returns the k rows with the largest cosine with q, best first:
// an exact search, shared between the CPUs when there are many rows.
func (m *matrix) nearest(q []float32, k int) []scored {
	n := len(m.ids)
	parts := 1
	if n >= 8192 {
		parts = runtime.GOMAXPROCS(0)
	}
	tops := make([]topK, parts)
	var wg sync.WaitGroup
	for p := range parts {
		tops[p].k = k
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() {
			t := &tops[p]
			for i := lo; i < hi; i++ {
				t.add(m.ids[i], dot(q, m.rows[i*m.dims:(i+1)*m.dims]))
			}
		})
	}
	wg.Wait()
	all := topK{k: k}
	for _, t := range tops {
		for _, s := range t.heap {
			all.add(s.id, s.score)
		}
	}
	return all.best()
}
