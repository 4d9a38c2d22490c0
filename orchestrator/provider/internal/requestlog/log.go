// Package requestlog keeps the requests a fake model server received
// (ollamatest's and openaitest's), for tests to read back.
package requestlog

import "sync"

// Log is the requests a server received, in order, each an R. It is safe
// for concurrent use; its zero value is empty.
type Log[R any] struct {
	mu  sync.Mutex
	all []R
}

// Add logs r and returns its index.
func (l *Log[R]) Add(r R) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, r)
	return len(l.all) - 1
}

// Update applies f to the request at index, under the log's lock.
func (l *Log[R]) Update(index int, f func(*R)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(&l.all[index])
}

// All returns the requests, each passed through clone, which copies what
// the copy would otherwise share with the log (headers, bodies).
func (l *Log[R]) All(clone func(R) R) []R {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]R, len(l.all))
	for i, r := range l.all {
		out[i] = clone(r)
	}
	return out
}
