// Package codeindextest makes synthetic code indexes for the tests and
// benchmarks of code search, deterministic by seed: a tree of Go files, an
// embedder whose vectors fall in clusters as a real model's do (so that
// nearest neighbours mean something), queries near those clusters, and
// what an exact search of an index finds for them.
package codeindextest

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Dims is the width of embeddinggemma's and nomic-embed-text's vectors.
const Dims = 768

// Space is where the vectors of a synthetic index lie: clusters of
// chunks about one thing, within topics, all sharing a common direction
// (a real model's vectors are not spread evenly: the cosine of two
// unrelated chunks is above 0). Cluster sizes are skewed, as code is:
// most clusters are small, a few (boilerplate, generated code) are large.
//
// With the weights below, two chunks of a cluster have a cosine of about
// 0.64, of two clusters of a topic about 0.37, of two topics about 0.06.
type Space struct {
	seed    uint64
	dims    int
	centers [][]float32 // by cluster
	cum     []float64   // the clusters' cumulative weights, the last 1
}

const (
	commonWeight  = 0.3  // of the direction every vector shares
	topicWeight   = 0.7  // of the cluster's topic
	ownWeight     = 0.65 // of the cluster's own direction
	chunkNoise    = 0.75 // a chunk's distance from its cluster's centre
	queryNoise    = 0.9  // a query's
	chunksPerCell = 250  // chunks a cluster holds on average
	topics        = 48
	sizeSkew      = 0.5 // cluster k (from 1) weighs 1/k^sizeSkew
)

// NewSpace is the space of an index of about n chunks, dims wide, made
// from seed.
func NewSpace(seed uint64, n, dims int) *Space {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	common := unit(r, dims)
	tops := make([][]float32, topics)
	for i := range tops {
		tops[i] = unit(r, dims)
	}
	k := max(8, n/chunksPerCell)
	s := &Space{seed: seed, dims: dims, centers: make([][]float32, k), cum: make([]float64, k)}
	total := 0.0
	for i := range k {
		t, own := tops[r.IntN(topics)], unit(r, dims)
		c := make([]float32, dims)
		for d := range c {
			c[d] = commonWeight*common[d] + topicWeight*t[d] + ownWeight*own[d]
		}
		normalize(c)
		s.centers[i] = c
		total += 1 / math.Pow(float64(i+1), sizeSkew)
		s.cum[i] = total
	}
	for i := range s.cum {
		s.cum[i] /= total
	}
	return s
}

// Dims is the vectors' width.
func (s *Space) Dims() int { return s.dims }

// Vector is the vector of the chunk known by key: near the centre of a
// cluster drawn by the clusters' weights.
func (s *Space) Vector(key uint64) []float32 {
	return s.near(rand.New(rand.NewPCG(s.seed, key)), chunkNoise)
}

// Query is the vector of the j-th query: near the centre of a cluster
// drawn as a chunk's is, a little farther than its chunks.
func (s *Space) Query(j int) []float32 {
	return s.near(rand.New(rand.NewPCG(s.seed^0x9e3779b97f4a7c15, uint64(j))), queryNoise)
}

func (s *Space) near(r *rand.Rand, noise float64) []float32 {
	k, _ := slices.BinarySearch(s.cum, r.Float64())
	c := s.centers[min(k, len(s.centers)-1)]
	v := make([]float32, s.dims)
	scale := noise / math.Sqrt(float64(s.dims))
	for d := range v {
		v[d] = c[d] + float32(scale*r.NormFloat64())
	}
	normalize(v)
	return v
}

// QueryText is the text Embedder reads as the j-th query, with words a
// query of code would hold for the keyword half of a search.
func QueryText(j int) string {
	return "query " + strconv.Itoa(j) + " " + queryWords[j%len(queryWords)]
}

var queryWords = []string{"where is w20 kept in w300", "how does w3000 parse w41", "w7 handler of w120 requests",
	"cache w900 by w2 key", "w15 and w1500 errors"}

// Embedder embeds in process, at once: a query (QueryText) as Query, any
// other text as the Vector of its hash. A benchmark measures lathe, not
// the model.
type Embedder struct{ Space *Space }

// Embed implements codeindex.Embedder.
func (e Embedder) Embed(_ context.Context, _ string, inputs []string) ([][]float32, error) {
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		if rest, ok := strings.CutPrefix(in, "query "); ok {
			num, _, _ := strings.Cut(rest, " ")
			if j, err := strconv.Atoi(num); err == nil {
				out[i] = e.Space.Query(j)
				continue
			}
		}
		h := fnv.New64a()
		h.Write([]byte(in))
		out[i] = e.Space.Vector(h.Sum64())
	}
	return out, nil
}

func unit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for d := range v {
		v[d] = float32(r.NormFloat64())
	}
	normalize(v)
	return v
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	n := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= n
	}
}
