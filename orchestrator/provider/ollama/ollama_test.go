package ollama

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

// newClient is a client of the server at rawURL with the default options.
func newClient(t *testing.T, rawURL string) *Client {
	t.Helper()
	base, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	return New(Options{URL: base, Options: cfg.Options, KeepAlive: cfg.KeepAlive.Duration})
}

func TestListModels(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(
		ollamatest.Model{Name: "qwen3:8b"},
		ollamatest.Model{Name: "gemma3:1b", Capabilities: []string{"completion", "vision"}},
		ollamatest.Model{Name: "old:7b", LegacyShow: true},
	))
	got, err := newClient(t, srv.URL()).Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, m := range got {
		summary = append(summary, m.Name+":"+map[bool]string{true: "tools", false: "no-tools"}[m.Tools])
	}
	want := []string{"qwen3:8b:tools", "gemma3:1b:no-tools", "old:7b:tools"}
	if !slices.Equal(summary, want) {
		t.Errorf("models = %v, want %v", summary, want)
	}
	if got[0].ParameterSize == "" || got[0].Size == 0 {
		t.Errorf("details missing: %+v", got[0])
	}
}

func TestPullModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(), ollamatest.WithPullable(ollamatest.Model{Name: "qwen3:8b"}))
	client := newClient(t, srv.URL())
	var statuses []string
	var sawBytes bool
	err := client.Pull(t.Context(), "qwen3:8b", func(p provider.PullProgress) {
		if len(statuses) == 0 || statuses[len(statuses)-1] != p.Status {
			statuses = append(statuses, p.Status)
		}
		sawBytes = sawBytes || (p.Total > 0 && p.Completed > 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if statuses[0] != "pulling manifest" || statuses[len(statuses)-1] != "success" || !sawBytes {
		t.Errorf("progress = %v (bytes seen: %v)", statuses, sawBytes)
	}
	if _, err := client.Model(t.Context(), "qwen3:8b"); err != nil {
		t.Errorf("the pulled model is not usable: %v", err)
	}
	err = client.Pull(t.Context(), "no-such-model:1b", func(provider.PullProgress) {})
	if !errors.Is(err, provider.ErrServer) || !strings.Contains(err.Error(), `pulling "no-such-model:1b" failed: pull model manifest: file does not exist`) {
		t.Errorf("unknown model: err = %v", err)
	}
}

func TestUnreachableServer(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err := newClient(t, dead.URL).Model(t.Context(), "qwen3:8b")
	if !errors.Is(err, provider.ErrUnreachable) {
		t.Fatalf("err = %v, want provider.ErrUnreachable", err)
	}
	want := "cannot reach Ollama at " + dead.URL + `: is "ollama serve" running?`
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want it to start with %q", err, want)
	}
}

func TestNotOllama(t *testing.T) {
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	_, err := newClient(t, other.URL).Model(t.Context(), "qwen3:8b")
	if want := "no Ollama API at " + other.URL + ` (it answered "404 page not found")`; !errors.Is(err, provider.ErrServer) || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// TestHostWithAPath: OLLAMA_HOST with a path, as an OpenAI-compatible
// base URL has (http://host:port/ollama/v1), reaching a server that
// answers 404 "not found" everywhere, is not a model "" to pull: the
// message names the URL and what to do.
func TestHostWithAPath(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"not found"}`))
	}))
	defer other.Close()
	_, err := newClient(t, other.URL+"/ollama/v1").Model(t.Context(), "")
	want := "no Ollama API at " + other.URL + `/ollama/v1 (it answered "404 not found"): OLLAMA_HOST names the server (` + other.URL +
		"), without a path; for an OpenAI-compatible server at " + other.URL + "/ollama/v1, use --provider openai --base-url " + other.URL + "/ollama/v1"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// TestHostWithAPIPath: OLLAMA_HOST=http://host:port/api asks for
// /api/api/...; the message says what to drop.
func TestHostWithAPIPath(t *testing.T) {
	srv := ollamatest.New(t)
	_, err := newClient(t, srv.URL()+"/api").Model(t.Context(), "")
	want := "no Ollama API at " + srv.URL() + `/api (it answered "404 page not found"): OLLAMA_HOST names the server, without "/api"`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
