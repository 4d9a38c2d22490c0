package ollamatest

import (
	"time"

	"github.com/ollama/ollama/api"
)

// The fake runs on a deterministic clock, so its output is the same on every
// run: created_at starts at startTime and advances by the simulated time of
// each line.
var (
	startTime = time.Date(2026, 1, 28, 18, 34, 16, 110694939, time.UTC)
	// localZone stands for the server machine's local time, in which
	// modified_at and expires_at are written ("-04:00" as in the recordings).
	localZone = time.FixedZone("EDT", -4*60*60)
	modelTime = time.Date(2025, 6, 23, 17, 1, 52, 264371207, localZone)
)

// Simulated durations: a cold load, a warm one, and the time per prompt and
// per generated token (about 825 and 50 tokens per second).
const (
	coldLoad         = 539_660_381 * time.Nanosecond
	warmLoad         = 38_473_250 * time.Nanosecond
	promptTokenTime  = 1_211_117 * time.Nanosecond
	evalTokenTime    = 19_873_211 * time.Nanosecond
	overheadTime     = 3_141_593 * time.Nanosecond
	defaultKeepAlive = 5 * time.Minute
)

// tick advances the clock by d and returns the new time, in UTC.
func (s *Server) tick(d time.Duration) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = s.clock.Add(d)
	return s.clock
}

// Advance moves the simulated clock forward by d, as time passing between
// requests: a model whose keep_alive runs out meanwhile is unloaded, so it
// leaves /api/ps and its next request is a cold load with an empty prompt
// cache.
func (s *Server) Advance(d time.Duration) {
	s.tick(max(d, 0))
}

// now returns the clock's time, in UTC.
func (s *Server) now() time.Time { return s.tick(0) }

// metrics returns the final line's metrics for a turn: promptCount prompt
// tokens of which evaluated were not cached, and eval generated tokens.
func metrics(load time.Duration, promptCount, evaluated, eval int) api.Metrics {
	pd := time.Duration(evaluated) * promptTokenTime
	ed := time.Duration(eval) * evalTokenTime
	return api.Metrics{
		TotalDuration:      load + pd + ed + overheadTime,
		LoadDuration:       load,
		PromptEvalCount:    promptCount,
		PromptEvalDuration: pd,
		EvalCount:          eval,
		EvalDuration:       ed,
	}
}

// newCallID returns an id like v0.17.x's toolCallId: "call_" and 8 characters
// from [a-z0-9], from the server's seeded generator.
func (s *Server) newCallID() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	s.mu.Lock()
	defer s.mu.Unlock()
	b := make([]byte, 8)
	for i := range b {
		b[i] = letters[s.rng.IntN(len(letters))]
	}
	return "call_" + string(b)
}
