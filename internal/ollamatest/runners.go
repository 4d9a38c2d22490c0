package ollamatest

import (
	"net/http"
	"time"

	"github.com/ollama/ollama/api"
)

// runner is a loaded model: the num_ctx it was loaded with and the prompt it
// last evaluated, which is the simulated prompt cache.
type runner struct {
	model   entry
	numCtx  int
	prompt  string
	expires time.Time
}

// loadOnly answers a chat request without messages: it loads the model
// (done_reason "load") or, with keep_alive 0, unloads it ("unload"). The
// answer is one JSON object even when streaming was asked for.
func (s *Server) loadOnly(w http.ResponseWriter, c chatCall) {
	reason := "load"
	if unloading(c.req) {
		reason = "unload"
		s.mu.Lock()
		delete(s.runners, c.model.name.String())
		s.mu.Unlock()
	} else {
		s.mu.Lock()
		s.loadLocked(c)
		s.mu.Unlock()
	}
	writeJSON(w, http.StatusOK, jsonUTF8, wireChunk{
		Model:      c.req.Model,
		CreatedAt:  s.tick(warmLoad),
		Message:    wireMessage{Role: "assistant"},
		Done:       true,
		DoneReason: reason,
	})
}

// loadLocked makes sure c's model runs with c's num_ctx and returns the
// runner and the load time: a cold load when the model was not loaded or ran
// with another num_ctx (which empties the prompt cache), a warm one otherwise.
// The caller holds s.mu.
func (s *Server) loadLocked(c chatCall) (*runner, time.Duration) {
	key := c.model.name.String()
	r, load := s.runners[key], warmLoad
	if r == nil || r.numCtx != c.numCtx {
		r, load = &runner{model: c.model, numCtx: c.numCtx}, coldLoad
		s.runners[key] = r
	}
	r.expires = expiry(s.clock, c.req.KeepAlive)
	return r, load
}

// evaluate loads c's model and returns the load time, the prompt_eval_count
// and how many prompt tokens were evaluated (not cached), updating the
// simulated prompt cache and c's Request.
func (s *Server) evaluate(c chatCall) (load time.Duration, count, evaluated int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, load := s.loadLocked(c)
	count, evaluated = promptEval(r.prompt, c.prompt, c.numCtx, !s.cfg.noCache, c.density)
	r.prompt = c.prompt
	s.requests[c.index].PromptTokens = count
	s.requests[c.index].CachedTokens = count - evaluated
	return load, count, evaluated
}

// noteEval records what the server computed for request index.
func (s *Server) noteEval(index int, f func(*Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.requests[index])
}

// expiry is when a model loaded at now with keepAlive unloads: 5 minutes by
// default, never (far in the future) for a negative duration.
func expiry(now time.Time, keepAlive *api.Duration) time.Time {
	switch {
	case keepAlive == nil:
		return now.Add(defaultKeepAlive)
	case keepAlive.Duration < 0:
		return now.AddDate(100, 0, 0)
	}
	return now.Add(keepAlive.Duration)
}
