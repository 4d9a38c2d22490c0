package engine

import (
	"net/url"
	"testing"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools/mcp"
)

// A server's sampling request is answered by the installed model its
// hints name, else by the model in use: the configured one, or the one
// the server holds in memory; the server's limits and system prompt go
// with it, thinking off.
func TestSampler(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithModels(
		ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}},
		ollamatest.Model{Name: "tiny:1b"}))
	fake.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"}, ollamatest.Reply{Content: "three"},
		ollamatest.Reply{Content: "four"})
	u, _ := url.Parse(fake.URL())
	cfg := config.Defaults()
	cfg.OllamaURL = u
	be, err := NewBackend(cfg)
	if err != nil {
		t.Fatal(err)
	}
	q := mcp.SamplingRequest{System: "Be terse.", MaxTokens: 20, Messages: []provider.Message{{Role: "user", Content: "hi"}}}
	for _, tc := range []struct {
		configured string
		hints      []string
		want       string
	}{
		{"qwen3:8b", nil, "qwen3:8b"},               // nothing in memory: the configured one
		{"qwen3:8b", []string{"TINY"}, "tiny:1b"},   // the hint names an installed model
		{"qwen3:8b", []string{"gpt-4"}, "qwen3:8b"}, // no such model: the configured one, in memory
		{"mistral:7b", nil, "qwen3:8b"},             // the configured one not in memory: one that is
	} {
		s := &sampler{provider: be.Provider, model: tc.configured}
		q.Hints = tc.hints
		r, err := s.Sample(t.Context(), q)
		if err != nil || r.Model != tc.want || r.StopReason != "endTurn" || r.Text == "" {
			t.Errorf("configured %q, hints %v: %+v %v; want %s", tc.configured, tc.hints, r, err, tc.want)
		}
	}
	reqs := fake.ChatRequests()
	first := reqs[0]
	if first.Messages[0].Role != "system" || first.Messages[0].Content != "Be terse." || first.Options["num_predict"] != float64(20) {
		t.Errorf("the request: %+v %v", first.Messages, first.Options)
	}
	if first.Think == nil || first.Think.Value != false {
		t.Errorf("thinking for qwen3:8b: %+v, want off", first.Think)
	}
}
