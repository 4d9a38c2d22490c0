package orchestrator

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai"
	"lathe/orchestrator/provider/openai/openaitest"
)

func turnsFinished(evs []Event) []TurnFinished {
	var out []TurnFinished
	for _, ev := range evs {
		if tf, ok := ev.(TurnFinished); ok {
			out = append(out, tf)
		}
	}
	return out
}

// TestTiming: each turn's figures follow from the server's: a cold load
// first, then the cached prefix and only the new part read, at the
// server's rates; the run sums them.
func TestTiming(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}},
		ollamatest.Reply{Content: "The file says hello, and that is all there is to it."})
	res, err := e.run(t.Context(), "read a")
	if err != nil {
		t.Fatal(err)
	}
	tf := turnsFinished(e.events)
	reqs := chats(e.srv)
	if len(tf) != 2 || len(reqs) != 2 {
		t.Fatalf("%d turns, %d requests", len(tf), len(reqs))
	}
	first, second := tf[0].Timing, tf[1].Timing
	if first.Load < 500*time.Millisecond || first.Reloaded || first.CachedTokens != 0 || first.PrefillTokens != tf[0].PromptTokens {
		t.Errorf("first turn: %+v", first)
	}
	if first.FirstToken <= 0 {
		t.Errorf("no time to the first token: %+v", first)
	}
	held := tf[0].PromptTokens
	if second.Load > 100*time.Millisecond || second.CachedTokens != held || second.PrefillTokens != tf[1].PromptTokens-held {
		t.Errorf("second turn: %+v; the server held %d of %d", second, held, tf[1].PromptTokens)
	}
	// lathe's reckoning is the server's, less what re-rendering the reply
	// changed, give or take the token a prefix ends in.
	if c := reqs[1].CachedTokens; second.CachedTokens > c+1 || second.CachedTokens < c-tf[0].CompletionTokens {
		t.Errorf("lathe reckons %d cached, the server had %d", second.CachedTokens, c)
	}
	// The fake reads about 825 prompt tokens and writes 50 a second.
	if first.PrefillRate < 780 || first.PrefillRate > 870 {
		t.Errorf("first turn's prefill rate %.0f", first.PrefillRate)
	}
	for i, tm := range []Timing{first, second} {
		if tm.DecodeRate < 45 || tm.DecodeRate > 55 {
			t.Errorf("turn %d decode rate %.1f", i+1, tm.DecodeRate)
		}
	}
	rt := res.Timing
	if rt.Load != first.Load+second.Load || rt.PrefillTokens != first.PrefillTokens+second.PrefillTokens ||
		rt.CachedTokens != second.CachedTokens || rt.FirstToken != first.FirstToken || rt.DecodeRate < 45 {
		t.Errorf("run timing %+v", rt)
	}
}

// TestReloadBetweenTurns: a model that left memory between turns is
// loaded again: said, and nothing counted as cached.
func TestReloadBetweenTurns(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	e.srv.Advance(31 * time.Minute) // past lathe's keep_alive of 30 minutes
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	tf := turnsFinished(e.events)
	if second := tf[1].Timing; !second.Reloaded || second.CachedTokens != 0 {
		t.Errorf("after keep_alive ran out: %+v", second)
	}
	var warned bool
	for _, ev := range e.events {
		if w, ok := ev.(Warning); ok && strings.Contains(w.Text, "qwen3:8b was loaded again before this turn") {
			warned = true
		}
	}
	if !warned {
		t.Error("the reload was not told")
	}
}

// TestCacheMissFlagged: a prompt read whole where lathe expected the
// server to hold most of it is flagged, and not counted as cached.
func TestCacheMissFlagged(t *testing.T) {
	e := newEnv(t, []ollamatest.Option{ollamatest.WithoutCacheSimulation()})
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	for _, p := range []string{"first", "second"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	tf := turnsFinished(e.events)
	if second := tf[1].Timing; !second.CacheMiss || second.CachedTokens != 0 || second.PrefillTokens != tf[1].PromptTokens {
		t.Errorf("a prompt read whole: %+v", second)
	}
	if first := tf[0].Timing; first.CacheMiss {
		t.Errorf("the first turn flagged: %+v", first)
	}
}

func turnsStarted(evs []Event) []TurnStarted {
	var out []TurnStarted
	for _, ev := range evs {
		if ts, ok := ev.(TurnStarted); ok {
			out = append(out, ts)
		}
	}
	return out
}

// TestWaitIsNamed: a request says what it waits for: the model's load
// when it is not in memory, then reading only what the server has not
// got; a preload spares the first request the load.
func TestWaitIsNamed(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}},
		ollamatest.Reply{Content: "done"})
	if _, err := e.run(t.Context(), "read a"); err != nil {
		t.Fatal(err)
	}
	ts := turnsStarted(e.events)
	if len(ts) != 2 || !ts[0].Loading || ts[1].Loading || ts[0].Waiting() != "loading qwen3:8b" {
		t.Fatalf("turns started %+v", ts)
	}
	if ts[0].Reading < 300 || ts[1].Reading > 100 {
		t.Errorf("reading %d then %d tokens: want the whole prompt, then only what was appended", ts[0].Reading, ts[1].Reading)
	}
	if got := ts[1].Waiting(); got != "waiting for qwen3:8b" {
		t.Errorf("second turn waits %q", got)
	}

	pre := newEnv(t, nil)
	pre.srv.Script(ollamatest.Reply{Content: "hi"})
	if _, err := pre.session.Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	if loaded, err := pre.session.Preload(t.Context()); err != nil || !loaded {
		t.Fatalf("preload: %v, %v", loaded, err)
	}
	if _, err := pre.run(t.Context(), "hello"); err != nil {
		t.Fatal(err)
	}
	if ts := turnsStarted(pre.events); ts[0].Loading {
		t.Errorf("after a preload: %+v", ts[0])
	}
	if got := (TurnStarted{Model: "m", Reading: 12400}).Waiting(); got != "reading 12,400 tokens" {
		t.Errorf("a long prompt waits %q", got)
	}
	if tf := turnsFinished(pre.events); tf[0].Timing.Load > 100*time.Millisecond {
		t.Errorf("the first request after a preload loaded the model: %v", tf[0].Timing.Load)
	}
}

// TestContextUse: the window's use, part by part, adds up, and its total
// is the server's count once there is one.
func TestContextUse(t *testing.T) {
	e := newEnv(t, nil, func(o *Options) { o.Env.Instructions = strings.Repeat("Use tabs. ", 80) })
	if u := e.session.Context(); u != (ContextUse{}) {
		t.Errorf("before Prepare: %+v", u)
	}
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}},
		ollamatest.Reply{Content: "done"})
	if _, err := e.run(t.Context(), "read a"); err != nil {
		t.Fatal(err)
	}
	u := e.session.Context()
	if u.NumCtx != 32768 || u.System == 0 || u.Instructions < 150 || u.Tools == 0 || u.History == 0 || u.ToolResults == 0 || u.Summary != 0 {
		t.Errorf("use %+v", u)
	}
	tf := turnsFinished(e.events)
	last := tf[len(tf)-1]
	if !u.Counted || u.Total != last.PromptTokens+last.CompletionTokens || u.Free() != 32768-u.Total {
		t.Errorf("total %d (counted %v), the server counted %d", u.Total, u.Counted, last.PromptTokens+last.CompletionTokens)
	}
	if sum := u.System + u.Instructions + u.Tools + u.History + u.ToolResults; sum < u.Total*2/3 || sum > u.Total*3/2 {
		t.Errorf("the parts add up to %d, the total is %d", sum, u.Total)
	}
}

// TestCachedCountBelieved: a server's own cached count, where it sends
// one, replaces lathe's reckoning; a zero where lathe expected a cache is
// a miss.
func TestCachedCountBelieved(t *testing.T) {
	first := []provider.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "a"}}
	second := append(slices.Clone(first), provider.Message{Role: "assistant", Content: "b"}, provider.Message{Role: "user", Content: "c"})
	for _, c := range []struct {
		reported   int
		wantCached int
		wantMiss   bool
	}{{300, 300, false}, {0, 0, true}, {5000, 1200, false}} {
		var cs cacheState
		cs.timing(first, prefix{}, provider.Metrics{PromptTokens: 1000, CompletionTokens: 10, PromptDuration: time.Second}, 0, residencyUnknown)
		got := cs.timing(second, prefix{}, provider.Metrics{PromptTokens: 1200, CachedTokens: c.reported, CachedReported: true,
			PromptDuration: 100 * time.Millisecond}, 0, residencyUnknown)
		if got.CachedTokens != c.wantCached || got.PrefillTokens != 1200-c.wantCached || got.CacheMiss != c.wantMiss {
			t.Errorf("server said %d cached: %+v; want %d cached, miss %v", c.reported, got, c.wantCached, c.wantMiss)
		}
	}
}

// TestDecodeRateAsLlamaCppTimesIt: llama.cpp times n−1 decode steps (the
// first token comes with the prompt's last batch): the rate lathe shows
// is the server's, for a two-token call as for a long answer, and the
// run's rate too.
func TestDecodeRateAsLlamaCppTimesIt(t *testing.T) {
	srv := openaitest.New(t, openaitest.LlamaCpp)
	e := newEnv(t, nil, func(o *Options) {
		o.Provider = openai.New(openai.Options{BaseURL: srv.URL(), Options: o.Config.Options})
	})
	srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{}`)}},
		ollamatest.Reply{Content: "The file says hello, and that is all there is to it."})
	res, err := e.run(t.Context(), "read")
	if err != nil {
		t.Fatal(err)
	}
	want := 1e3 / openaitest.DecodeMS
	for _, tf := range turnsFinished(e.events) {
		if r := tf.Timing.DecodeRate; math.Abs(r-want) > 0.01 {
			t.Errorf("turn %d (%d tokens): decode rate %.2f, the server's %.2f", tf.Turn, tf.CompletionTokens, r, want)
		}
	}
	if r := res.Timing.DecodeRate; math.Abs(r-want) > 0.01 {
		t.Errorf("the run's decode rate %.2f, the server's %.2f", r, want)
	}
}

// TestCutReplyIsCounted: a reply cut off before the server's count came
// (interrupted, stopped at a time limit) still counts what was read and
// written: the prompt as lathe reckons it, the tokens that streamed; its
// turn ends, failed, with those counts, which add up to the run's.
func TestCutReplyIsCounted(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "one two three four five", Hang: true, AfterChunks: 3})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	deltas := 0
	res, err := e.session.Run(ctx, "count", func(ev Event) {
		e.events = append(e.events, ev)
		if _, ok := ev.(TextDelta); ok {
			if deltas++; deltas == 3 {
				cancel()
			}
		}
	})
	if err != nil || res.StopReason != StopInterrupted {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if res.Usage.CompletionTokens != 3 || res.Usage.PromptTokens < 300 {
		t.Errorf("usage %+v: want the prompt as reckoned and the 3 tokens that streamed", res.Usage)
	}
	tf := turnsFinished(e.events)
	if len(tf) != 1 || tf[0].PromptTokens != res.Usage.PromptTokens || tf[0].CompletionTokens != 3 || !tf[0].Failed {
		t.Errorf("turns ended %+v", tf)
	}
}
