package orchestrator

import (
	"time"

	"lathe/orchestrator/provider"
)

// Timing is where a turn's time went: the server's figures from the end of
// its reply, and lathe's own clock.
type Timing struct {
	// Load is the server's load_duration: the model loaded (cold, or again).
	Load time.Duration
	// FirstToken is from sending the request to the first token (thinking,
	// text or a call), on lathe's clock; 0 when none came.
	FirstToken time.Duration
	// PrefillTokens are the prompt tokens the server read: the prompt less
	// what it had in its cache (CachedTokens).
	PrefillTokens int
	// PrefillRate and DecodeRate are tokens a second of reading the prompt
	// and of writing the reply; 0 when not measured.
	PrefillRate, DecodeRate float64
	// CachedTokens is how much of the prompt the server had in its cache,
	// as lathe reckons it: the previous request's prompt, when this request
	// starts with the same messages and the model was not loaded again (the
	// previous reply is in the cache too, but its tokens may not come out
	// the same when the server renders it into the prompt, so it is not
	// counted). The server's own count wins where it gives one.
	CachedTokens int
	// CacheMiss flags a prompt that took far longer to read than its new
	// part would at the rate measured before: the server read it all.
	CacheMiss bool
	// Reloaded flags a load on a turn after the first: the model left
	// memory between turns (keep_alive ran out, another program, another
	// num_ctx).
	Reloaded bool
}

// reloadAfter is the load time past which a turn after the first counts
// as a reload, when the server could not say whether it held the model
// before the request: a loaded model answers in tens of milliseconds
// (Ollama's load_duration also holds its scheduler's wait, half a second
// on a busy server).
const reloadAfter = 500 * time.Millisecond

// residency is whether the server held the model, with the session's
// window, just before a request: Ollama's /api/ps says so.
type residency int

const (
	residencyUnknown residency = iota // the server cannot say, or did not answer
	resident                          // it held the model: a load_duration is the wait, not a load
	evicted                           // it did not: the request loads the model, with nothing cached
)

// prefix is what every request of the session starts with: the system
// prompt and the tool schemas (their size in bytes, and tokens as
// estimated). A compaction keeps them, so the server still has them in
// its cache.
type prefix struct {
	system string
	specs  int
	tokens int
}

// cacheState is what lathe knows of the server's prompt cache for this
// session: the last request's messages and the tokens of its prompt, and
// the prefill rate measured so far.
type cacheState struct {
	sent   []provider.Message
	held   int
	prefix prefix
	rate   float64 // tokens a second, of the largest uncached read seen
	turns  int
}

// forget drops what the cache holds: another prompt prefix was sent.
func (c *cacheState) forget() { c.sent, c.held, c.prefix = nil, 0, prefix{} }

// expect is how many tokens of a request that sends sent, starting with
// p, the server should have in its cache: the last request's prompt when
// this one extends it; its system prompt and tools when only they are
// the same (after a compaction).
func (c *cacheState) expect(sent []provider.Message, p prefix) int {
	switch {
	case startsWith(sent, c.sent):
		return c.held
	case c.held > 0 && p.system != "" && p == c.prefix:
		return min(p.tokens, c.held)
	}
	return 0
}

// timing works out a turn's Timing from the messages it sent (beginning
// with p), the reply's metrics, the time to its first token and whether
// the server held the model before it, and remembers what the server
// holds now.
func (c *cacheState) timing(sent []provider.Message, p prefix, m provider.Metrics, first time.Duration, res residency) Timing {
	t := Timing{Load: m.LoadDuration, FirstToken: first}
	c.turns++
	switch res {
	case resident:
	case evicted:
		t.Reloaded = c.turns > 1
	default:
		t.Reloaded = c.turns > 1 && m.LoadDuration > reloadAfter
	}
	if !t.Reloaded && res != evicted && !m.Truncated { // a prompt cut at its start is read anew
		t.CachedTokens = min(c.expect(sent, p), m.PromptTokens)
	}
	if m.CachedReported { // the server's word; none held what lathe sent before is a miss
		t.CacheMiss = t.CachedTokens > 0 && m.CachedTokens == 0
		t.CachedTokens = min(m.CachedTokens, m.PromptTokens)
	}
	t.PrefillTokens = max(0, m.PromptTokens-t.CachedTokens)
	if secs := m.PromptDuration.Seconds(); secs > 0 && t.PrefillTokens > 0 {
		t.PrefillRate = float64(t.PrefillTokens) / secs
		// Reading the new part took far longer than it would at the rate
		// seen before, and about as long as reading it all would: the
		// server did not have the rest. A busy server reads slower than
		// it did, but not all of a prompt in the time of its new part.
		if !m.CachedReported && c.rate > 0 && t.CachedTokens > 0 && secs > 3*float64(t.PrefillTokens)/c.rate+0.25 &&
			secs > 0.5*float64(m.PromptTokens)/c.rate {
			t.CacheMiss = true
			t.CachedTokens, t.PrefillTokens = 0, m.PromptTokens
			t.PrefillRate = float64(m.PromptTokens) / secs
		}
		if t.PrefillTokens >= 64 {
			c.rate = max(c.rate, t.PrefillRate)
		}
	}
	t.DecodeRate = m.DecodeRate()
	if m.PromptTokens > 0 {
		c.sent, c.held, c.prefix = sent, m.PromptTokens, p
	} else {
		c.forget()
	}
	return t
}

// seed takes up what the server held of a restored conversation: the
// request that sent sent, counted as held tokens, as though this session
// had sent it. A model that left memory since is found out before the
// next request (evicted); a cache another conversation took over, by
// its rate.
func (c *cacheState) seed(sent []provider.Message, p prefix, held int) {
	c.sent, c.held, c.prefix = sent, held, p
}

// startsWith reports whether next starts with every message of prev.
func startsWith(next, prev []provider.Message) bool {
	if len(prev) == 0 || len(next) < len(prev) {
		return false
	}
	for i := range prev {
		a, b := prev[i], next[i]
		if a.Role != b.Role || a.Content != b.Content || a.Thinking != b.Thinking || a.ToolCallID != b.ToolCallID ||
			len(a.ToolCalls) != len(b.ToolCalls) || len(a.Images) != len(b.Images) {
			return false
		}
	}
	return true
}

// RunTiming sums a run's turns: loads, the first turn's wait for a token,
// tokens read and cached, and the rates over the whole run.
type RunTiming struct {
	Load          time.Duration
	FirstToken    time.Duration
	PrefillTokens int
	PrefillRate   float64
	DecodeRate    float64
	CachedTokens  int

	prefillTime, decodeTime time.Duration
	decoded                 int
}

// PrefillTime is how long the server spent reading prompts, over the
// run's turns.
func (r RunTiming) PrefillTime() time.Duration { return r.prefillTime }

// DecodeTime is how long the server spent writing replies, over the
// run's turns.
func (r RunTiming) DecodeTime() time.Duration { return r.decodeTime }

// add counts one turn in.
func (r *RunTiming) add(t Timing, m provider.Metrics) {
	r.Load += t.Load
	if r.FirstToken == 0 {
		r.FirstToken = t.FirstToken
	}
	r.PrefillTokens += t.PrefillTokens
	r.CachedTokens += t.CachedTokens
	r.prefillTime += m.PromptDuration
	r.decodeTime += m.EvalDuration
	r.decoded += max(m.CompletionTokens-m.UntimedTokens, 0)
	if s := r.prefillTime.Seconds(); s > 0 {
		r.PrefillRate = float64(r.PrefillTokens) / s
	}
	if s := r.decodeTime.Seconds(); s > 0 {
		r.DecodeRate = float64(r.decoded) / s
	}
}
