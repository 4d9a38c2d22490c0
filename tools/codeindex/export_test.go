package codeindex

import "context"

// Nearest is the half of a search that compares vectors: the ids of the k
// chunks of dir's index nearest v, best first.
func Nearest(ctx context.Context, s *Searcher, dir string, v []float32, k int) ([]int64, error) {
	m, err := s.sync(ctx, dir)
	if err != nil {
		return nil, err
	}
	near, err := s.nearest(ctx, dir, m, v, k)
	ids := make([]int64, len(near))
	for i, n := range near {
		ids[i] = n.id
	}
	return ids, err
}

// MatrixBytes is how much memory the vectors of dir's index take in s.
func MatrixBytes(s *Searcher, dir string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.matrices[dir]
	if m == nil {
		return 0
	}
	return 8*cap(m.ids) + 8*cap(m.bits)
}
