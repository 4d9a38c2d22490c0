package ollamatest

import (
	"errors"
	"sync"

	"github.com/ollama/ollama/api"
)

// ErrNoReply is Replies.Take's error when no reply is left to answer with.
var ErrNoReply = errors.New("no scripted reply left")

// Replies is what a fake server answers chat requests with: the replies
// queued, in order, then the function set by Respond, for as long as the
// test runs. Server keeps its script in one, and so does openaitest's.
// It is safe for concurrent use; its zero value has no reply.
type Replies struct {
	mu       sync.Mutex
	queued   []Reply
	fallback func(api.ChatRequest) Reply
}

// Add queues replies, which the caller has validated.
func (q *Replies) Add(replies ...Reply) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queued = append(q.queued, replies...)
}

// Respond makes fn answer the requests that find no queued reply left.
func (q *Replies) Respond(fn func(api.ChatRequest) Reply) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.fallback = fn
}

// Take returns the reply to req: the first queued one, which it removes,
// or else Respond's. A Func reply is replaced by what its Func returns for
// req; Take fails with why when that is not a valid reply, or is another
// Func reply, and with ErrNoReply when there is no reply to take.
func (q *Replies) Take(req api.ChatRequest) (Reply, error) {
	q.mu.Lock()
	var reply Reply
	switch {
	case len(q.queued) > 0:
		reply, q.queued = q.queued[0], q.queued[1:]
	case q.fallback != nil:
		reply = Reply{Func: q.fallback}
	default:
		q.mu.Unlock()
		return Reply{}, ErrNoReply
	}
	q.mu.Unlock()
	if reply.Func == nil {
		return reply, nil
	}
	reply = reply.Func(req)
	err := reply.Validate()
	if err == nil && reply.Func != nil {
		err = errors.New("a Func reply returned another Func reply")
	}
	if err != nil {
		return Reply{}, err
	}
	return reply, nil
}

// Left returns the queued replies no request took.
func (q *Replies) Left() []Reply {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Reply(nil), q.queued...)
}
