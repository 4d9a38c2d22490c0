package ollama

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

func TestEmbed(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.DefaultModel(), ollamatest.EmbeddingModel()))
	c := newClient(t, srv.URL())
	vs, err := c.Embed(t.Context(), "embeddinggemma", []string{"func Parse", "draw a cat"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || !slices.Equal(vs[0], ollamatest.Embed("func Parse", ollamatest.DefaultEmbeddingLength)) {
		t.Fatalf("vectors %d", len(vs))
	}
	if vs, err := c.Embed(t.Context(), "embeddinggemma", nil); err != nil || vs != nil {
		t.Errorf("nothing to embed: %v, %v (and no request)", vs, err)
	}
	if n := len(srv.EmbedRequests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	_, err = c.Embed(t.Context(), "nomic-embed-text", []string{"x"})
	if !errors.Is(err, provider.ErrModelNotFound) || !strings.Contains(err.Error(), `ollama pull nomic-embed-text`) {
		t.Errorf("a model not installed: %v", err)
	}
}

func TestUnit(t *testing.T) {
	v := []float32{3, 4}
	unit(v)
	if math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Errorf("unit %v", v)
	}
}

func TestEmbeddingModel(t *testing.T) {
	nomic := ollamatest.Model{Name: "nomic-embed-text:v1.5", Capabilities: []string{ollamatest.CapEmbedding}}
	gemma := ollamatest.EmbeddingModel()
	for _, c := range []struct {
		name   string
		models []ollamatest.Model
		asked  string
		want   string
		err    string
	}{
		{"the first default installed", []ollamatest.Model{ollamatest.DefaultModel(), nomic, gemma}, "", "embeddinggemma:latest", ""},
		{"any tag of a default", []ollamatest.Model{ollamatest.DefaultModel(), nomic}, "", "nomic-embed-text:v1.5", ""},
		{"none", []ollamatest.Model{ollamatest.DefaultModel()}, "", "", `no embedding model is installed (lathe looks for embeddinggemma, nomic-embed-text): run "ollama pull embeddinggemma"`},
		{"named", []ollamatest.Model{gemma, nomic}, "nomic-embed-text:v1.5", "nomic-embed-text:v1.5", ""},
		{"named without its tag", []ollamatest.Model{gemma}, "EmbeddingGemma", "embeddinggemma:latest", ""},
		{"named, not installed", []ollamatest.Model{gemma}, "mxbai-embed-large", "", `the embedding model "mxbai-embed-large" is not installed: run "ollama pull mxbai-embed-large"`},
		{"named, cannot embed", []ollamatest.Model{ollamatest.DefaultModel()}, "qwen3:8b", "", "qwen3:8b is not an embedding model"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.WithModels(c.models...))
			got, err := newClient(t, srv.URL()).EmbeddingModel(t.Context(), c.asked)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, provider.ErrNoModel)):
				t.Errorf("error %v, want %q (ErrNoModel)", err, c.err)
			case c.err == "" && (err != nil || got != c.want):
				t.Errorf("%q, %v; want %q", got, err, c.want)
			}
		})
	}
}
