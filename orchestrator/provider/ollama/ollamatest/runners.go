package ollamatest

import (
	"cmp"
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
// runner and the load time: a cold load (Model.LoadDuration) when the model
// was not loaded, ran with another num_ctx, or its keep_alive ran out on the
// simulated clock (each of which empties the prompt cache), a warm one
// otherwise. The caller holds s.mu.
func (s *Server) loadLocked(c chatCall) (*runner, time.Duration) {
	key := c.model.name.String()
	r, load := s.runners[key], warmLoad
	if r == nil || r.numCtx != c.numCtx || r.expired(s.clock) {
		s.makeRoomLocked(key)
		r, load = &runner{model: c.model, numCtx: c.numCtx}, cmp.Or(c.model.LoadDuration, coldLoad)
		s.runners[key] = r
	}
	r.expires = expiry(s.clock, c.req.KeepAlive)
	return r, load
}

// makeRoomLocked unloads, when WithMaxLoaded allows no more, the loaded
// model other than key whose keep_alive ends first. The caller holds s.mu.
func (s *Server) makeRoomLocked(key string) {
	if s.cfg.maxLoaded <= 0 {
		return
	}
	loaded, victim := 0, ""
	for k, r := range s.runners {
		if k == key || r.expired(s.clock) {
			continue
		}
		loaded++
		if victim == "" || r.expires.Before(s.runners[victim].expires) {
			victim = k
		}
	}
	if loaded >= s.cfg.maxLoaded {
		delete(s.runners, victim)
	}
}

// Busy makes the next chat request wait d for the scheduler, as it does
// on a server busy with other requests: Ollama counts that wait in the
// request's load_duration, as it counts a load, so a model that stayed
// loaded shows half a second of "load" (564 ms, 726 ms and 581 ms seen
// on a loaded machine) and /api/ps is the only sign it did not load.
func (s *Server) Busy(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wait = d
}

// release starts c's model's keep_alive when c's reply is over, as the
// scheduler does when a request finishes.
func (s *Server) release(c chatCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.runners[c.model.name.String()]; r != nil && r.numCtx == c.numCtx {
		r.expires = expiry(s.clock, c.req.KeepAlive)
	}
}

// expired reports whether the scheduler has unloaded r by now: its
// keep_alive ran out (keep_alive 0 with messages unloads it right after the
// reply).
func (r *runner) expired(now time.Time) bool {
	return !now.Before(r.expires)
}

// evaluate loads c's model and returns the load time, the prompt_eval_count
// and how many prompt tokens were evaluated (not cached), updating the
// simulated prompt cache and c's Request.
func (s *Server) evaluate(c chatCall) (load time.Duration, count, evaluated int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, load := s.loadLocked(c)
	load, s.wait = load+s.wait, 0
	count, evaluated = promptEval(r.prompt, c.prompt, c.numCtx, !s.cfg.noCache, c.density, c.dense)
	r.prompt = c.prompt
	s.requests.Update(c.index, func(r *Request) {
		r.PromptTokens, r.CachedTokens = count, count-evaluated
	})
	return load, count, evaluated
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

// limits are what can end c's reply early, for a prompt of promptCount
// tokens: num_predict as llm/server.go applies it (unset or negative, or
// more than 10 × num_ctx, means 10 × num_ctx; 0 means none, except for an
// Endless reply, which the fake always ends there), and the context window
// with the runner's shift rule (ollamarunner: num_keep, unset 4 and
// negative meaning the whole prompt, at most num_ctx - 1; a shift discards
// (num_ctx - num_keep) / 2 tokens).
func (c chatCall) limits(promptCount int, endless bool) limits {
	predict := c.numPredict
	if predict < 0 || predict > 10*c.numCtx || (predict == 0 && endless) {
		predict = 10 * c.numCtx
	}
	return limits{
		predict: predict,
		window:  c.numCtx - promptCount,
		shift:   c.shift,
		discard: max((c.numCtx-c.keep(promptCount))/2, 1),
		guard:   true,
	}
}

// keep is the num_keep the runner applies to a prompt of promptCount tokens.
func (c chatCall) keep(promptCount int) int {
	keep := c.numKeep
	if keep < 0 {
		keep = promptCount
	}
	return max(0, min(keep, c.numCtx-1))
}

// shifted records that c's reply shifted the context n times. After a
// shift the runner's cache holds the first num_keep tokens of the prompt
// and the newer half of the window, so the next request shares only those
// num_keep tokens with it.
func (s *Server) shifted(c chatCall, promptCount, n int) {
	keep := c.keep(promptCount)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests.Update(c.index, func(r *Request) { r.Shifts = n })
	if r := s.runners[c.model.name.String()]; r != nil {
		r.prompt = c.prompt[:min(len(c.prompt), bytesOfTokens(keep, c.density))]
	}
}
