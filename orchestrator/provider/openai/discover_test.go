package openai

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/openai/openaitest"
)

// TestDiscovery: each kind of server is recognised from what it answers,
// and its window found where it says it: llama.cpp's /props (per slot),
// vLLM's max_model_len, LM Studio's loaded context; a server that says
// nothing needs context_length. The window is capped at options.num_ctx.
func TestDiscovery(t *testing.T) {
	tests := []struct {
		name      string
		kind      openaitest.Kind
		models    []openaitest.Model
		opts      Options
		want      Kind
		model     string // the model chosen by default
		numCtx    int
		trained   int
		errSubstr string
	}{
		{"llama.cpp", openaitest.LlamaCpp, []openaitest.Model{{Name: "qwen3-8b", Window: 16384, Trained: 40960}}, Options{},
			KindLlamaCpp, "qwen3-8b", 16384, 40960, ""},
		{"vLLM", openaitest.VLLM, []openaitest.Model{{Name: "Qwen/Qwen3-8B", Window: 40960}}, Options{},
			KindVLLM, "Qwen/Qwen3-8B", 32768, 40960, ""},
		{"LM Studio, a loaded model first", openaitest.LMStudio, []openaitest.Model{
			{Name: "text-embedding-nomic", Type: "embeddings"}, {Name: "qwen3-4b", NotLoaded: true, Trained: 32768},
			{Name: "qwen3-8b", Window: 8192, Trained: 40960}}, Options{}, KindLMStudio, "qwen3-8b", 8192, 40960, ""},
		{"unknown server, configured window", openaitest.Plain, []openaitest.Model{{Name: "m"}}, Options{ContextLength: 12000},
			KindUnknown, "m", 12000, 12000, ""},
		{"unknown server, no window", openaitest.Plain, []openaitest.Model{{Name: "m"}}, Options{},
			KindUnknown, "", 0, 0, "set context_length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t, tt.kind, openaitest.WithModels(tt.models...))
			tt.opts.BaseURL = srv.URL()
			tt.opts.Options = config.Defaults().Options
			c := New(tt.opts)
			info, err := c.Model(t.Context(), "")
			if tt.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errSubstr) {
					t.Fatalf("err = %v, want %q", err, tt.errSubstr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			kind, _ := c.Kind(t.Context())
			if kind != tt.want || info.Name != tt.model || info.NumCtx != tt.numCtx || info.ContextLength != tt.trained || !info.Lists("tools") {
				t.Errorf("kind %s, info %+v; want %s, %s, num_ctx %d, trained %d", kind, info, tt.want, tt.model, tt.numCtx, tt.trained)
			}
			models := 0
			for _, r := range srv.Requests() {
				if r.Path == "/v1/models" {
					models++
				}
			}
			before := len(srv.Requests())
			if _, err := c.Model(t.Context(), tt.model); err != nil || models != 1 || len(srv.Requests()) != before {
				t.Errorf("the server was asked again (%d requests to /v1/models; %v)", models, err)
			}
		})
	}
}

// TestJinjaWarning: llama.cpp started without --jinja is told at once, and
// a model the server does not serve is named with those it does.
func TestJinjaWarning(t *testing.T) {
	srv := openaitest.New(t, openaitest.LlamaCpp, openaitest.WithoutJinja())
	info, err := New(Options{BaseURL: srv.URL(), Options: config.Defaults().Options}).Model(t.Context(), "")
	if err != nil || len(info.Notes) != 1 || !strings.Contains(info.Notes[0], "--jinja") {
		t.Errorf("info %+v, err %v", info, err)
	}
	ok := openaitest.New(t, openaitest.LlamaCpp)
	if info, err := New(Options{BaseURL: ok.URL(), Options: config.Defaults().Options}).Model(t.Context(), ""); err != nil || len(info.Notes) != 0 {
		t.Errorf("with --jinja: notes %v, err %v", info.Notes, err)
	}
	vllm := openaitest.New(t, openaitest.VLLM, openaitest.WithModels(openaitest.Model{Name: "a"}, openaitest.Model{Name: "b"}))
	_, err = New(Options{BaseURL: vllm.URL()}).Model(t.Context(), "c")
	if !errors.Is(err, provider.ErrModelNotFound) || !strings.Contains(err.Error(), "(it serves a, b)") {
		t.Errorf("err = %v", err)
	}
	list, err := New(Options{BaseURL: vllm.URL()}).Models(t.Context())
	if err != nil || !slices.EqualFunc(list, []provider.ModelSummary{{Name: "a", Tools: true}, {Name: "b", Tools: true}},
		func(a, b provider.ModelSummary) bool { return a == b }) {
		t.Errorf("models %+v, %v", list, err)
	}
}

// TestDiscoveryWithAPIKey: every request of the discovery, llama.cpp's
// /props and /apply-template included, carries the API key.
func TestDiscoveryWithAPIKey(t *testing.T) {
	srv := openaitest.New(t, openaitest.LlamaCpp, openaitest.WithAPIKey("sekrit"))
	info, err := New(Options{BaseURL: srv.URL(), APIKey: "sekrit", Options: config.Defaults().Options}).Model(t.Context(), "")
	if err != nil || len(info.Notes) != 0 {
		t.Fatalf("info %+v, err %v", info, err)
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
		if got := r.Header.Get("Authorization"); got != "Bearer sekrit" {
			t.Errorf("%s %s: Authorization %q", r.Method, r.Path, got)
		}
	}
	if !slices.Contains(paths, "GET /props") || !slices.Contains(paths, "POST /apply-template") {
		t.Errorf("requests %q: want /props and /apply-template among them", paths)
	}
}

// TestNameWithoutTag: a model named without its tag is the one the server
// lists with ":latest" (Ollama's /v1/models lists "onetool:latest"); the
// request names it as the server lists it.
func TestNameWithoutTag(t *testing.T) {
	srv := openaitest.New(t, openaitest.VLLM, openaitest.WithModels(openaitest.Model{Name: "qwen3:8b"}, openaitest.Model{Name: "onetool:latest"}))
	info, err := New(Options{BaseURL: srv.URL(), Options: config.Defaults().Options}).Model(t.Context(), "onetool")
	if err != nil || info.Name != "onetool:latest" {
		t.Errorf("info %+v, err %v", info, err)
	}
	if _, err := New(Options{BaseURL: srv.URL()}).Model(t.Context(), "qwen3"); !errors.Is(err, provider.ErrModelNotFound) {
		t.Errorf("qwen3 for qwen3:8b: %v", err)
	}
}

// TestOllamaV1: Ollama's OpenAI-compatible API is found out from the
// same host's /api/version; its window comes from /api/ps (the runtime
// window, which /v1 cannot change), the Modelfile's num_ctx, or its
// smallest default with a note; the capabilities from /api/show (an
// embedding model is no chat model, a model without tools is refused);
// a name without its tag is found; and what this path cannot guarantee
// is said, with the native path to take.
func TestOllamaV1(t *testing.T) {
	srv := openaitest.New(t, openaitest.Ollama, openaitest.WithModels(
		openaitest.Model{Name: "onetool:latest", Window: 8192, Trained: 40960},
		openaitest.Model{Name: "tinytext:latest", Window: 4096, Trained: 40960, NumCtx: 16384},
		openaitest.Model{Name: "notools:latest", Capabilities: []string{"completion"}},
		openaitest.Model{Name: "nomic-embed-text:latest", Capabilities: []string{"embedding"}}))
	srv.Load("onetool")
	c := New(Options{BaseURL: srv.URL(), Options: config.Defaults().Options})
	info, err := c.Model(t.Context(), "onetool")
	if err != nil || info.Name != "onetool:latest" || info.NumCtx != 8192 || info.ServerWindow != 8192 || info.ContextLength != 40960 {
		t.Fatalf("loaded: %+v, %v", info, err)
	}
	if kind, _ := c.Kind(t.Context()); kind != KindOllama {
		t.Errorf("kind %q", kind)
	}
	if len(info.Notes) != 1 || !strings.Contains(info.Notes[0], "cuts a prompt longer than the window silently") ||
		!strings.Contains(info.Notes[0], `provider = "ollama" with base_url = "`+strings.TrimSuffix(srv.URL(), "/v1")+`"`) {
		t.Errorf("notes %q", info.Notes)
	}
	if info, err := c.Model(t.Context(), "tinytext"); err != nil || info.NumCtx != 16384 || len(info.Notes) != 1 {
		t.Errorf("the Modelfile's num_ctx: %+v, %v", info, err)
	}
	srv2 := openaitest.New(t, openaitest.Ollama, openaitest.WithModels(openaitest.Model{Name: "onetool:latest", Window: 8192}))
	other := New(Options{BaseURL: srv2.URL(), Options: config.Defaults().Options})
	if info, err := other.Model(t.Context(), "onetool"); err != nil || info.NumCtx != 4096 || len(info.Notes) != 2 ||
		!strings.Contains(info.Notes[1], "has not loaded onetool:latest yet: lathe assumes its smallest default window, 4096 tokens") {
		t.Errorf("not loaded: %+v, %v", info, err)
	}
	if _, err := c.Model(t.Context(), "notools"); !errors.Is(err, provider.ErrNoToolSupport) {
		t.Errorf("a model without tools: %v", err)
	}
	list, err := c.Models(t.Context())
	var names []string
	for _, m := range list {
		names = append(names, fmt.Sprintf("%s %v", m.Name, m.Tools))
	}
	if err != nil || strings.Join(names, ", ") != "onetool:latest true, tinytext:latest true, notools:latest false" {
		t.Errorf("models %q, %v", names, err)
	}
}
