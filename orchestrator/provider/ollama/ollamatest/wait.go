package ollamatest

import (
	"context"
	"fmt"
	"net/http"
)

// waitState counts hanging replies; changed is closed and replaced whenever a
// count changes, waking every waiter.
type waitState struct {
	hanging   int // Hang replies that reached their blocking point
	cancelled int // Hang replies that saw their request's context end
	changed   chan struct{}
}

// WaitHanging blocks until n Hang replies in total have sent their chunks
// and blocked, or ctx is done. A test calls it before cancelling the client,
// so that the cancellation reaches a server that is really waiting.
func (s *Server) WaitHanging(ctx context.Context, n int) error {
	return s.waitFor(ctx, func(w waitState) bool { return w.hanging >= n },
		func(w waitState) string { return fmt.Sprintf("%d of %d hanging", w.hanging, n) })
}

// WaitCancelled blocks until n Hang replies in total have seen their
// request's context cancelled (the client went away), or ctx is done.
func (s *Server) WaitCancelled(ctx context.Context, n int) error {
	return s.waitFor(ctx, func(w waitState) bool { return w.cancelled >= n },
		func(w waitState) string { return fmt.Sprintf("%d of %d cancelled", w.cancelled, n) })
}

// Cancelled returns how many Hang replies have seen their request's context
// cancelled so far.
func (s *Server) Cancelled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waits.cancelled
}

func (s *Server) waitFor(ctx context.Context, done func(waitState) bool, state func(waitState) string) error {
	for {
		s.mu.Lock()
		w := s.waits
		s.mu.Unlock()
		if done(w) {
			return nil
		}
		select {
		case <-w.changed:
		case <-ctx.Done():
			return fmt.Errorf("ollamatest: wait (%s): %w", state(w), ctx.Err())
		}
	}
}

// hang blocks until the request's context ends or the server closes, and
// records a cancellation.
func (s *Server) hang(r *http.Request, index int) {
	s.updateWaits(func(w *waitState) { w.hanging++ })
	select {
	case <-r.Context().Done():
		s.updateWaits(func(w *waitState) {
			w.cancelled++
			s.requests.Update(index, func(r *Request) { r.Cancelled = true })
		})
	case <-s.closing:
	}
}

// updateWaits applies f under the lock and wakes the waiters.
func (s *Server) updateWaits(f func(*waitState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.waits)
	close(s.waits.changed)
	s.waits.changed = make(chan struct{})
}
