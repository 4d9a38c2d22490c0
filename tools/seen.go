package tools

import (
	"crypto/sha256"
	"errors"
	"lathe/prompts"
	"sync"
)

// ErrStale is what a refusal to edit a file that changed since the model
// last saw it wraps: Preview's error for such an edit satisfies
// errors.Is(err, ErrStale).
var ErrStale = errors.New("file changed since it was last read")

// seenFiles remembers, per file, a hash of the content the model last saw
// of it: what read_file read (the whole file, even when it showed only a
// page) or what write_file and edit_file wrote. edit_file refuses a file
// whose content no longer has that hash, since the model's old_string was
// taken from a version that is gone; a file with no record is not refused.
// Files are keyed by their root-relative path after symlinks (as follow
// returns it). The zero value is ready; it is safe for concurrent use, as
// read-only calls run in parallel.
type seenFiles struct {
	mu   sync.Mutex
	sums map[string][sha256.Size]byte
}

// record notes that the model has seen target holding content with the
// hash sum.
func (s *seenFiles) record(target string, sum [sha256.Size]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sums == nil {
		s.sums = map[string][sha256.Size]byte{}
	}
	s.sums[target] = sum
}

// check returns a *staleError, for the model, when target has a record
// and data, its content now, does not match it. rel is the path as the
// model named it.
func (s *seenFiles) check(rel, target string, data []byte) error {
	s.mu.Lock()
	sum, ok := s.sums[target]
	s.mu.Unlock()
	if !ok || sum == sha256.Sum256(data) {
		return nil
	}
	return &staleError{rel: rel}
}

// staleError is the refusal to edit a file that changed since the model
// last saw it. It is ErrStale.
type staleError struct{ rel string }

func (e *staleError) Error() string {
	return e.rel + " changed on disk since you last read it (edited outside lathe or by a command); " +
		prompts.Hint(prompts.HintReread)
}

func (e *staleError) Is(target error) bool { return target == ErrStale }
