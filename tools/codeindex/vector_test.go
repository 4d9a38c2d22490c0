package codeindex

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCandidates checks the rows a search re-ranks against every row
// sorted by its distance: the n nearest by their bits, of equal distances
// the oldest, whichever way the CPUs share them.
func TestCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const dims, rows = 100, 20_000
	m := newMatrix(dims, rows)
	vecs := make([][]float32, rows)
	for i := range rows {
		v := make([]float32, dims)
		for d := range v {
			v[d] = float32(r.NormFloat64())
		}
		vecs[i] = v
		m.add(int64(3*i+1), v)
	}
	for _, n := range []int{1, 10, 1000, rows - 1, rows, rows + 5} {
		q := vecs[r.IntN(rows)]
		qb := appendSigns(nil, q, m.words)
		order := make([]int, rows)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(hamming(qb, m.row(a)), hamming(qb, m.row(b))) })
		var want []int64
		for _, i := range order[:min(n, rows)] {
			want = append(want, m.ids[i])
		}
		slices.Sort(want)
		if got := m.candidates(q, n); !slices.Equal(got, want) {
			t.Errorf("%d candidates: %d ids, %d of them wrong", n, len(got), len(got)-countCommon(got, want))
		}
	}
}

func countCommon(a, b []int64) int {
	n := 0
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			n++
		}
	}
	return n
}

// TestSignsKeepTheSign checks that a row's bits are its numbers' signs.
func TestSignsKeepTheSign(t *testing.T) {
	v := make([]float32, 130)
	for i := range v {
		v[i] = -1
	}
	v[0], v[64], v[129] = 0.5, 2, 1e-9
	got := appendSigns(nil, v, 3)
	want := []uint64{1, 1, 1 << 1}
	if !slices.Equal(got, want) {
		t.Errorf("signs %b, want %b", got, want)
	}
}
