package orchestrator

import (
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/hosts"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

// warnings are the texts of the Warning events.
func warnings(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		if w, ok := ev.(Warning); ok {
			out = append(out, w.Text)
		}
	}
	return out
}

func reloadWarnings(evs []Event) []string {
	var out []string
	for _, w := range warnings(evs) {
		if strings.Contains(w, "was loaded again") {
			out = append(out, w)
		}
	}
	return out
}

// TestBusyServerIsNotAReload: Ollama counts its scheduler's wait in
// load_duration: on a busy server a model that stayed loaded shows half
// a second of "load". /api/ps said it was loaded: no reload is told, and
// the cache is counted as the server used it.
func TestBusyServerIsNotAReload(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	e.srv.Busy(564 * time.Millisecond)
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	second := turnsFinished(e.events)[1]
	if w := reloadWarnings(e.events); len(w) != 0 || second.Timing.Reloaded {
		t.Errorf("a model that stayed loaded told as reloaded: %q, %+v", w, second.Timing)
	}
	if second.Timing.Load < 500*time.Millisecond {
		t.Fatalf("the fake's wait was not counted in load_duration: %v", second.Timing.Load)
	}
	if got, server := second.Timing.CachedTokens, chats(e.srv)[1].CachedTokens; got == 0 || got > server+1 {
		t.Errorf("cached %d, the server used %d", got, server)
	}
}

// TestSlowReadIsNotAMiss: a busy server reads the new part of a prompt
// slower than it read before; that is not a cache miss while reading it
// all at the rate seen would have taken far longer (Ollama used 1,248 of
// 1,257 tokens where lathe said 0%).
func TestSlowReadIsNotAMiss(t *testing.T) {
	first := []provider.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "a"}}
	second := append(append([]provider.Message(nil), first...), provider.Message{Role: "assistant", Content: "b"},
		provider.Message{Role: "user", Content: "c"})
	var cs cacheState
	cs.timing(first, prefix{}, provider.Metrics{PromptTokens: 1199, PromptDuration: 5200 * time.Millisecond}, 0, resident)
	got := cs.timing(second, prefix{}, provider.Metrics{PromptTokens: 1257, PromptDuration: 790 * time.Millisecond}, 0, resident)
	if got.CacheMiss || got.CachedTokens != 1199 || got.PrefillTokens != 58 {
		t.Errorf("a slow read of 58 new tokens: %+v", got)
	}
	// Read all of it, at about the rate seen: a miss.
	all := cs.timing(append(second, provider.Message{Role: "assistant", Content: "d"}, provider.Message{Role: "user", Content: "e"}),
		prefix{}, provider.Metrics{PromptTokens: 1300, PromptDuration: 5500 * time.Millisecond}, 0, resident)
	if !all.CacheMiss || all.CachedTokens != 0 {
		t.Errorf("a prompt read whole: %+v", all)
	}
}

// TestCacheAfterCompaction: a compaction keeps the system prompt and the
// tools, which the server still has: they are counted as cached.
func TestCacheAfterCompaction(t *testing.T) {
	e := newEnv(t, nil)
	long := strings.Repeat("The answer goes on with many words about the question. ", 30)
	e.srv.Script(ollamatest.Reply{Content: long}, ollamatest.Reply{Content: long},
		ollamatest.Reply{Content: "They talked at length."}, ollamatest.Reply{Content: "ok"})
	for _, p := range []string{"first", "second"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.session.Compact(t.Context(), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "third"); err != nil {
		t.Fatal(err)
	}
	tf := turnsFinished(e.events)
	reqs := chats(e.srv)
	got, server := tf[len(tf)-1].Timing.CachedTokens, reqs[len(reqs)-1].CachedTokens
	if got == 0 || got > server+1 || got < server*2/3 {
		t.Errorf("after the compaction: cached %d, the server used %d", got, server)
	}
}

// TestCacheOnResume: a session taken up again (--continue, a new
// process) finds the server still holding its last prompt: counted as
// cached, and the prefill rate is that of what was read.
func TestCacheOnResume(t *testing.T) {
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(ollamatest.Reply{Content: "Hello."}, ollamatest.Reply{Content: "Again."})
	if _, err := e.run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	saved, err := st.Load(t.Context(), e.session.id)
	if err != nil {
		t.Fatal(err)
	}
	resumed := newEnv(t, nil, withStore(st), func(o *Options) { o.Provider = e.session.opts.Provider })
	if err := resumed.session.ResumeFrom(saved); err != nil {
		t.Fatal(err)
	}
	if _, err := resumed.run(t.Context(), "hi again"); err != nil {
		t.Fatal(err)
	}
	tm := turnsFinished(resumed.events)[0].Timing
	server := chats(e.srv)[1].CachedTokens
	if tm.CachedTokens == 0 || tm.CachedTokens > server+1 || tm.PrefillRate > 2*turnsFinished(e.events)[0].Timing.PrefillRate {
		t.Errorf("on resume: %+v; the server used %d", tm, server)
	}
}

// TestReloadByEmbedding: lathe's own embedding request has the server
// load the embedding model in the chat model's place (it holds one model
// here): the reload is told with that cause.
func TestReloadByEmbedding(t *testing.T) {
	e := newEnv(t, []ollamatest.Option{ollamatest.WithMaxLoaded(1),
		ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b"}, ollamatest.EmbeddingModel())})
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.session.opts.Provider.(*ollama.Client).Embed(t.Context(), "embeddinggemma:latest", []string{"scan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	w := reloadWarnings(e.events)
	if len(w) != 1 || !strings.Contains(w[0], "lathe's code search had the server load its embedding model") {
		t.Errorf("warnings %q", w)
	}
}

// TestReloadByFailover: when the host in use goes away between turns, the
// change of host is told, and the reload it causes is put down to it.
func TestReloadByFailover(t *testing.T) {
	a, b := ollamatest.New(t), ollamatest.New(t)
	target, _ := url.Parse(a.URL())
	front := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	defer front.Close()
	client := func(raw string) hosts.Host {
		u, _ := url.Parse(raw)
		d := config.Defaults()
		return hosts.Host{URL: raw, Provider: ollama.New(ollama.Options{URL: u, Options: d.Options, KeepAlive: d.KeepAlive.Duration})}
	}
	pool := hosts.New([]hosts.Host{client(front.URL), client(b.URL())})
	e := newEnv(t, nil, func(o *Options) { o.Provider = pool })
	a.Script(ollamatest.Reply{Content: "one"})
	b.Script(ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	front.Close() // the first host goes away
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	ws := warnings(e.events)
	moved := false
	for _, w := range ws {
		moved = moved || strings.HasPrefix(w, front.URL+" could not be reached: the conversation goes on at "+b.URL())
	}
	if r := reloadWarnings(e.events); !moved || len(r) != 1 || !strings.Contains(r[0], "the request went to another host") {
		t.Errorf("warnings %q", ws)
	}
	if tm := turnsFinished(e.events)[1].Timing; tm.CachedTokens != 0 {
		t.Errorf("on the other host: %+v", tm)
	}
}
