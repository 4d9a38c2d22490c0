package codeindex

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// Result is a chunk a search found, best first.
type Result struct {
	Chunk
	// Score is the fused rank score (higher is better); Cosine the
	// chunk's cosine with the query, Keyword its rank among the chunks
	// holding the query's words (from 1; 0 when it holds none).
	Score   float64
	Cosine  float32
	Keyword int
	// Changed says that the file changed since it was indexed: the lines
	// may have moved.
	Changed bool
}

// candidates is how many chunks each half of a search (vectors, words)
// proposes to the fusion.
const candidates = 50

// commonWord is how many chunks a word may be in and still be looked
// for, however large the index: ranking that many costs little;
// rankedWord the most a word may be in and be looked for, however large
// the index: ranking more costs tens of milliseconds.
const (
	commonWord = 1000
	rankedWord = 10_000
)

// rrfK is the constant of reciprocal rank fusion: a chunk's score is the
// sum over the two rankings of 1/(rrfK + rank). 60 is the usual value: it
// keeps one ranking's first places from drowning the other's.
const rrfK = 60

// Searcher searches the indexes of a Store, keeping each project's
// vectors in memory between searches and bringing them up to date with
// the store before each one. It is safe for concurrent use.
type Searcher struct {
	store    Store
	embedder Embedder
	mu       sync.Mutex
	matrices map[string]*matrix // by project directory
	versions map[string]int64   // the index's version each matrix is of
}

// NewSearcher returns a searcher of store's indexes, embedding queries
// with embedder.
func NewSearcher(store Store, embedder Embedder) *Searcher {
	return &Searcher{store: store, embedder: embedder, matrices: map[string]*matrix{}, versions: map[string]int64{}}
}

// Query is a search of a project's index.
type Query struct {
	Dir   string   // the project's directory
	Root  *os.Root // reads its files, to tell those changed since; nil tells none
	Text  string
	Limit int // the most results; 0 means 8
}

// Search returns the chunks of q.Dir's index that best answer q.Text: the
// chunks nearest the query's vector (the cosine of the chunks whose
// quantised vectors are nearest, see matrix) and
// those holding its words (FTS5's bm25), ranked together by reciprocal
// rank fusion. ErrNoIndex when the project has no index.
func (s *Searcher) Search(ctx context.Context, q Query) ([]Result, error) {
	if q.Limit <= 0 {
		q.Limit = 8
	}
	model, err := s.store.IndexModel(ctx, q.Dir)
	if err != nil {
		return nil, err
	}
	if model == "" {
		return nil, ErrNoIndex
	}
	m, err := s.sync(ctx, q.Dir)
	if err != nil {
		return nil, err
	}
	if len(m.ids) == 0 {
		return nil, ErrNoIndex
	}
	// The words' half runs beside the embedding and the vectors' half.
	var words []int64
	var wordsErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		words, wordsErr = s.keywordHits(ctx, q, len(m.ids))
	}()
	near, err := s.nearestTo(ctx, q, model, m)
	<-done
	if err != nil {
		return nil, err
	}
	if wordsErr != nil {
		return nil, wordsErr
	}
	return s.fuse(ctx, q, near, words)
}

// nearestTo embeds the query's text with model and returns the chunks of
// m nearest it.
func (s *Searcher) nearestTo(ctx context.Context, q Query, model string, m *matrix) ([]scored, error) {
	vs, err := s.embedder.Embed(ctx, model, []string{QueryText(model, q.Text)})
	if err != nil {
		return nil, fmt.Errorf("embed the query with %s: %w", model, err)
	}
	if len(vs) != 1 || len(vs[0]) != m.dims {
		return nil, fmt.Errorf("embed the query with %s: a vector of %d numbers, the index has %d", model, len(vs[0]), m.dims)
	}
	return s.nearest(ctx, q.Dir, m, vs[0], candidates)
}

// keywordHits are the chunks holding the query's words, best first: the
// words that tell chunks apart, that is. A word more than a tenth of the
// chunks hold (and more than commonWord), or more than rankedWord, says
// little of any of them and costs the most to rank (FTS5 scores every
// chunk holding it): it is left out, unless every word is that common
// (then the rarest is kept, if rankedWord chunks or fewer hold it).
func (s *Searcher) keywordHits(ctx context.Context, q Query, chunks int) ([]int64, error) {
	ws := keywords(queryWords(q.Text))
	if len(ws) == 0 {
		return nil, nil
	}
	limit := max(min(chunks/10, rankedWord), commonWord)
	counts, err := s.store.WordCounts(ctx, ws, rankedWord)
	if err != nil {
		return nil, err
	}
	var kept []string
	rarest := ""
	for _, w := range ws {
		n, ok := counts[w]
		switch {
		case !ok:
			continue // no chunk holds it
		case n <= limit:
			kept = append(kept, w)
		}
		if rarest == "" || n < counts[rarest] {
			rarest = w
		}
	}
	if len(kept) == 0 && rarest != "" && counts[rarest] <= rankedWord {
		kept = []string{rarest}
	}
	if len(kept) == 0 {
		return nil, nil
	}
	return s.store.KeywordHits(ctx, q.Dir, ftsAny(kept), candidates)
}

// fuse ranks the two lists of candidates together and fills in the best.
func (s *Searcher) fuse(ctx context.Context, q Query, near []scored, words []int64) ([]Result, error) {
	byID := map[int64]*Result{}
	get := func(id int64) *Result {
		r := byID[id]
		if r == nil {
			r = &Result{}
			byID[id] = r
		}
		return r
	}
	for i, n := range near {
		r := get(n.id)
		r.Cosine, r.Score = n.score, r.Score+1/float64(rrfK+i+1)
	}
	for i, id := range words {
		r := get(id)
		r.Keyword, r.Score = i+1, r.Score+1/float64(rrfK+i+1)
	}
	ids := make([]int64, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int64) int {
		ra, rb := byID[a], byID[b]
		return cmp.Or(cmp.Compare(rb.Score, ra.Score), cmp.Compare(rb.Cosine, ra.Cosine), cmp.Compare(a, b))
	})
	ids = ids[:min(len(ids), q.Limit)]
	chunks, err := s.store.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(ids))
	for _, id := range ids {
		c, ok := chunks[id]
		if !ok {
			continue // removed since
		}
		r := byID[id]
		r.Chunk, r.Changed = c.Chunk, changed(q.Root, c.File)
		out = append(out, *r)
	}
	return out, nil
}

// changed reports whether the file f differs in size or mtime from what
// was indexed.
func changed(root *os.Root, f File) bool {
	if root == nil {
		return false
	}
	info, err := root.Stat(f.Path)
	return err != nil || info.Size() != f.Size || !info.ModTime().Equal(f.MTime)
}

// ftsAny is an FTS5 query for any of words, each quoted so that none is
// read as an operator.
func ftsAny(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR ")
}

// nearest returns the k chunks of m whose vectors have the largest
// cosine with q, best first, among the rerank nearest by their bits: their
// vectors are read from the store and compared exactly.
func (s *Searcher) nearest(ctx context.Context, dir string, m *matrix, q []float32, k int) ([]scored, error) {
	ids := m.candidates(q, rerank)
	top := topK{k: k}
	var v []float32
	err := s.store.Vectors(ctx, dir, ids, func(id int64, vec []byte) error {
		if len(vec) != 4*m.dims {
			return nil // another model's, left over: not comparable
		}
		var err error
		if v, err = decodeVector(v[:0], vec); err != nil {
			return err
		}
		top.add(id, dot(q, v))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return top.best(), nil
}

// sync brings the in-memory vectors of dir up to date with the store:
// the rows of chunks gone are dropped, those of new chunks read (ids are
// never reused, so a known id's vector has not changed).
func (s *Searcher) sync(ctx context.Context, dir string) (*matrix, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	version, err := s.store.IndexVersion(ctx, dir)
	if err != nil {
		return nil, err
	}
	old := s.matrices[dir]
	if old != nil && version == s.versions[dir] {
		return old, nil
	}
	ids, err := s.store.ChunkIDs(ctx, dir)
	if err != nil {
		return nil, err
	}
	if old != nil && slices.Equal(old.ids, ids) {
		s.versions[dir] = version
		return old, nil
	}
	var m *matrix
	var missing []int64
	j := 0
	for _, id := range ids {
		for old != nil && j < len(old.ids) && old.ids[j] < id {
			j++
		}
		if old != nil && j < len(old.ids) && old.ids[j] == id {
			if m == nil {
				m = newMatrix(old.dims, len(ids))
			}
			m.addRow(id, old.row(j))
			continue
		}
		missing = append(missing, id)
	}
	// The signs stored of each chunk first; the whole vectors of the
	// chunks stored without them (an index made before they were).
	signed := make(map[int64]bool, len(missing))
	err = s.store.VectorSigns(ctx, dir, missing, func(id int64, dims int, signs []byte) error {
		if m == nil { // nothing kept: the new vectors may be of another length
			m = newMatrix(dims, len(ids))
		}
		if dims != m.dims {
			return nil // another model's, left over: not comparable
		}
		signed[id] = true
		var err error
		if m.bits, err = decodeSigns(m.bits, signs, m.words); err != nil {
			return err
		}
		m.ids = append(m.ids, id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(signed) > 0 {
		missing = slices.DeleteFunc(missing, func(id int64) bool { return signed[id] })
	}
	var v []float32
	err = s.store.Vectors(ctx, dir, missing, func(id int64, vec []byte) error {
		if m == nil { // nothing kept: the new vectors may be of another length
			m = newMatrix(len(vec)/4, len(ids))
		}
		if len(vec) != 4*m.dims {
			return nil // another model's, left over: not comparable
		}
		var err error
		if v, err = decodeVector(v[:0], vec); err != nil {
			return err
		}
		m.add(id, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = &matrix{}
	}
	sortRows(m)
	s.matrices[dir], s.versions[dir] = m, version
	return m, nil
}

// sortRows puts m's rows in id order (the rows kept come first, then the
// new ones).
func sortRows(m *matrix) {
	if slices.IsSorted(m.ids) {
		return
	}
	order := make([]int, len(m.ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(m.ids[a], m.ids[b]) })
	ids := make([]int64, len(m.ids))
	bits := make([]uint64, len(m.bits))
	for to, from := range order {
		ids[to] = m.ids[from]
		copy(bits[to*m.words:(to+1)*m.words], m.row(from))
	}
	m.ids, m.bits = ids, bits
}
