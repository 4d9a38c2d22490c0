package hosts

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai"
	"lathe/orchestrator/provider/openai/openaitest"
)

func ollamaHost(t *testing.T, raw string) Host {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	d := config.Defaults()
	return Host{URL: raw, Provider: ollama.New(ollama.Options{URL: u, Options: d.Options, KeepAlive: d.KeepAlive.Duration})}
}

func openaiHost(raw string) Host {
	return Host{URL: raw, Provider: openai.New(openai.Options{BaseURL: raw, Options: config.Defaults().Options})}
}

// downURL is the address of a server that is no longer there.
func downURL(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

func say(t *testing.T, p provider.Provider, model string) (string, error) {
	t.Helper()
	var b strings.Builder
	req := &provider.Request{Model: provider.ModelInfo{Name: model, NumCtx: 4096}, Messages: []provider.Message{{Role: "user", Content: "hi"}}}
	err := p.Chat(t.Context(), req, func(c provider.Chunk) error { b.WriteString(c.Content); return nil })
	return b.String(), err
}

// TestPreferLoaded: of two hosts that serve the model, the one that has it
// loaded is chosen, though it comes second; a host whose configured list
// does not name the model is not asked.
func TestPreferLoaded(t *testing.T) {
	cold := ollamatest.New(t)
	warm := ollamatest.New(t)
	warm.Script(ollamatest.Reply{Content: "warm"}) // loads qwen3:8b there
	if _, err := say(t, ollamaHost(t, warm.URL()).Provider, "qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	other := openaitest.New(t, openaitest.VLLM)
	pool := New([]Host{
		{URL: other.URL(), Provider: openaiHost(other.URL()).Provider, Models: []string{"Qwen/Qwen3-8B"}},
		ollamaHost(t, cold.URL()), ollamaHost(t, warm.URL())})
	info, err := pool.Model(t.Context(), "qwen3:8b")
	if err != nil || info.Name != "qwen3:8b" || pool.URL() != warm.URL() {
		t.Fatalf("chose %s (%+v, %v), want the warm host %s", pool.URL(), info, err, warm.URL())
	}
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the host whose list does not name the model was asked %d times", n)
	}
	warm.Script(ollamatest.Reply{Content: "again"})
	if text, err := say(t, pool, "qwen3:8b"); err != nil || text != "again" {
		t.Errorf("chat %q, %v", text, err)
	}
}

// TestFailover: a host that cannot be reached when a request starts is
// passed over for the next that serves the model, OpenAI-compatible or
// not.
func TestFailover(t *testing.T) {
	first := openaitest.New(t, openaitest.LlamaCpp)
	backup := ollamatest.New(t)
	pool := New([]Host{openaiHost(first.URL()), ollamaHost(t, backup.URL())})
	if _, err := pool.Model(t.Context(), "qwen3:8b"); err != nil || pool.URL() != first.URL() {
		t.Fatalf("chose %s, %v", pool.URL(), err)
	}
	first.Script(ollamatest.Reply{Content: "first"})
	if text, err := say(t, pool, "qwen3:8b"); text != "first" || err != nil {
		t.Fatalf("%q, %v", text, err)
	}
	// The first host goes away between two turns.
	pool.hosts[0] = openaiHost(downURL(t) + "/v1")
	backup.Script(ollamatest.Reply{Content: "backup"})
	if text, err := say(t, pool, "qwen3:8b"); text != "backup" || err != nil || pool.URL() != backup.URL() {
		t.Fatalf("after failover: %q, %v, on %s", text, err, pool.URL())
	}
	// Back to the first host, which is down: the pool goes to the backup
	// again, without a word.
	pool.use(0)
	backup.Script(ollamatest.Reply{Content: "backup"})
	if text, err := say(t, pool, "qwen3:8b"); text != "backup" || err != nil {
		t.Fatalf("after failover: %q, %v, on %s", text, err, pool.URL())
	}
}

// TestNoFailoverMidStream: a reply that broke after it began is not sent
// again elsewhere.
func TestNoFailoverMidStream(t *testing.T) {
	a, b := ollamatest.New(t), ollamatest.New(t)
	pool := New([]Host{ollamaHost(t, a.URL()), ollamaHost(t, b.URL())})
	a.Script(ollamatest.Reply{Content: "half of an answer", Drop: true, AfterChunks: 2})
	if _, err := pool.Model(t.Context(), "qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	if _, err := say(t, pool, "qwen3:8b"); !errors.Is(err, provider.ErrStreamBroken) {
		t.Errorf("err = %v", err)
	}
	if n := len(b.ChatRequests()); n != 0 {
		t.Errorf("the second host got %d requests", n)
	}
}

// TestAllDown: when every host is down, the error names each.
func TestAllDown(t *testing.T) {
	d1, d2 := downURL(t), downURL(t)
	pool := New([]Host{ollamaHost(t, d1), openaiHost(d2 + "/v1")})
	_, err := pool.Model(t.Context(), "qwen3:8b")
	if !errors.Is(err, provider.ErrUnreachable) || !strings.Contains(err.Error(), d1) || !strings.Contains(err.Error(), d2) {
		t.Errorf("err = %v", err)
	}
	one := ollamatest.New(t)
	pool = New([]Host{ollamaHost(t, one.URL())})
	if _, err := pool.Model(t.Context(), "llama9:1b"); !errors.Is(err, provider.ErrModelNotFound) {
		t.Errorf("a model no host serves: %v", err)
	}
	if err := New([]Host{openaiHost(d2 + "/v1")}).Pull(t.Context(), "x", nil); err == nil || !strings.Contains(err.Error(), "only from Ollama") {
		t.Errorf("pull on an OpenAI-compatible host: %v", err)
	}
}

// TestNameWithoutTag: a model named without its tag ("onetool") is the one
// a host lists as "onetool:latest", as on a single Ollama server, whether
// the host is asked or its configured list names it so.
func TestNameWithoutTag(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "onetool:latest"}))
	pool := New([]Host{ollamaHost(t, downURL(t)), ollamaHost(t, srv.URL())})
	info, err := pool.Model(t.Context(), "onetool")
	if err != nil || pool.URL() != srv.URL() {
		t.Fatalf("chose %s: %+v, %v", pool.URL(), info, err)
	}
	srv.Script(ollamatest.Reply{Content: "hi"})
	if text, err := say(t, pool, "onetool"); err != nil || text != "hi" {
		t.Fatalf("chat %q, %v", text, err)
	}
	listed := ollamaHost(t, srv.URL())
	listed.Models = []string{"onetool"}
	pool = New([]Host{listed})
	if _, err := pool.Model(t.Context(), "onetool:latest"); err != nil {
		t.Fatalf("configured as onetool, asked for onetool:latest: %v", err)
	}
	st := pool.Statuses(t.Context())
	if loaded, ok := st[0].Served["onetool"]; !ok || !loaded {
		t.Errorf("served %v: onetool, loaded by the chat above, is not shown so", st[0].Served)
	}
	models, err := pool.Models(t.Context())
	if err != nil || len(models) != 1 || models[0].Name != "onetool:latest" {
		t.Errorf("models %+v, %v", models, err)
	}
}

// TestEmbeddings: the pool makes embeddings on its Ollama hosts, the
// first that answers and has an embedding model; a pool with no Ollama
// host says the code index needs one.
func TestEmbeddings(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b"}, ollamatest.EmbeddingModel()))
	pool := New([]Host{ollamaHost(t, downURL(t)), openaiHost(downURL(t) + "/v1"), ollamaHost(t, srv.URL())})
	if !pool.Embeds() {
		t.Fatal("a pool with Ollama hosts does not embed")
	}
	model, err := pool.EmbeddingModel(t.Context(), "")
	if err != nil || model != "embeddinggemma:latest" {
		t.Fatalf("model %q, %v", model, err)
	}
	vs, err := pool.Embed(t.Context(), model, []string{"a", "b"})
	if err != nil || len(vs) != 2 {
		t.Errorf("embed: %d vectors, %v", len(vs), err)
	}
	none := New([]Host{openaiHost(downURL(t) + "/v1")})
	if _, err := none.EmbeddingModel(t.Context(), ""); none.Embeds() || !errors.Is(err, provider.ErrNoModel) ||
		!strings.Contains(err.Error(), "no host of [[hosts]] is an Ollama server") {
		t.Errorf("a pool without Ollama: %v", err)
	}
}
