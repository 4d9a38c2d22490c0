package agent

import (
	"strings"
	"testing"
	"time"

	"lathe/internal/ollamatest"
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
