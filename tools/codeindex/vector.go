package codeindex

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"runtime"
	"slices"
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

// EncodeSigns is the signs of v as stored: a bit a number (1 for a number
// above 0), in little-endian uint64s.
func EncodeSigns(v []float32) []byte {
	words := appendSigns(nil, v, (len(v)+63)/64)
	b := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

var errSigns = errors.New("stored signs have a length that does not fit their vector's")

// decodeSigns appends the signs stored in b, of a vector of dims numbers
// (words uint64s), to dst.
func decodeSigns(dst []uint64, b []byte, words int) ([]uint64, error) {
	if len(b) != 8*words {
		return dst, errSigns
	}
	for i := 0; i < len(b); i += 8 {
		dst = append(dst, binary.LittleEndian.Uint64(b[i:]))
	}
	return dst, nil
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

// matrix is a project's vectors in memory, each quantised to one bit a
// number, its sign: 96 bytes for a vector of 768 float32s (3 KiB). A
// search ranks every row by the Hamming distance of its bits to the
// query's, then re-ranks the best of them by their exact cosine, read
// from the store.
type matrix struct {
	dims  int
	words int      // uint64s a row: dims/64, rounded up
	ids   []int64  // increasing
	bits  []uint64 // len(ids) × words
}

// rerank is how many of the rows nearest by their bits a search reads
// again to compare exactly: enough that the ten best by cosine are among
// them nearly always (recall@10 of 0.95 or more at a million chunks of
// codeindextest's clustered space), few enough to read in a few
// milliseconds.
const rerank = 1000

func newMatrix(dims, rows int) *matrix {
	words := (dims + 63) / 64
	return &matrix{dims: dims, words: words, ids: make([]int64, 0, rows), bits: make([]uint64, 0, rows*words)}
}

// add appends the row of id, whose vector is v.
func (m *matrix) add(id int64, v []float32) {
	m.ids = append(m.ids, id)
	m.bits = appendSigns(m.bits, v, m.words)
}

// addRow appends a row of another matrix of the same width.
func (m *matrix) addRow(id int64, bits []uint64) {
	m.ids = append(m.ids, id)
	m.bits = append(m.bits, bits...)
}

func (m *matrix) row(i int) []uint64 { return m.bits[i*m.words : (i+1)*m.words] }

// appendSigns appends the signs of v, a bit each (1 for a number above 0),
// in words uint64s.
func appendSigns(dst []uint64, v []float32, words int) []uint64 {
	start := len(dst)
	dst = append(dst, make([]uint64, words)...)
	row := dst[start:]
	for i, x := range v {
		if x > 0 {
			row[i/64] |= 1 << (i % 64)
		}
	}
	return dst
}

// candidates returns the ids of the n rows whose bits differ least from
// q's (of equal distances, the older rows), in increasing order, every
// row when there are no more than n: the CPUs share the rows, each
// counting how many rows lie at each distance, then the rows nearer
// than the distance where the count reaches n are kept.
func (m *matrix) candidates(q []float32, n int) []int64 {
	if len(m.ids) <= n {
		return slices.Clone(m.ids)
	}
	qb := appendSigns(nil, q, m.words)
	dist := make([]uint16, len(m.ids))
	parts := 1
	if len(m.ids) >= 8192 {
		parts = runtime.GOMAXPROCS(0)
	}
	hists := make([][]int, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(m.ids)/parts, (p+1)*len(m.ids)/parts
		wg.Go(func() {
			h := make([]int, m.dims+1)
			for i := lo; i < hi; i++ {
				d := hamming(qb, m.row(i))
				dist[i] = uint16(d)
				h[d]++
			}
			hists[p] = h
		})
	}
	wg.Wait()
	// cut is the distance the n-th nearest row lies at; of the rows at
	// it, only the first few are taken.
	cut, below := 0, 0
	for ; cut <= m.dims; cut++ {
		at := 0
		for _, h := range hists {
			at += h[cut]
		}
		if below+at >= n {
			break
		}
		below += at
	}
	atCut := n - below
	out := make([]int64, 0, n)
	for i, d := range dist {
		switch {
		case int(d) < cut:
			out = append(out, m.ids[i])
		case int(d) == cut && atCut > 0:
			out = append(out, m.ids[i])
			atCut--
		}
	}
	return out
}

func hamming(a, b []uint64) int {
	d := 0
	for i, x := range a {
		d += bits.OnesCount64(x ^ b[i])
	}
	return d
}
