package ollamatest

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbed(t *testing.T) {
	s := New(t, WithModels(DefaultModel(), EmbeddingModel()))
	resp, body := post(t, s, "POST", "/api/embed",
		`{"model":"embeddinggemma","input":["parse the config file","parseConfig reads the file","draw a cat"]}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != jsonUTF8 {
		t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var out api.EmbedResponse
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	if out.Model != "embeddinggemma" || len(out.Embeddings) != 3 || out.PromptEvalCount == 0 {
		t.Fatalf("reply %+v", out)
	}
	for i, v := range out.Embeddings {
		if len(v) != DefaultEmbeddingLength || math.Abs(dot(v, v)-1) > 1e-5 {
			t.Errorf("vector %d: length %d, norm² %v", i, len(v), dot(v, v))
		}
	}
	e := out.Embeddings
	if near, far := dot(e[0], e[1]), dot(e[0], e[2]); near <= far || near < 0.5 {
		t.Errorf("texts sharing words: cosine %.2f, unrelated ones %.2f", near, far)
	}
	if !slices.Equal(e[1], Embed("parseConfig reads the file", DefaultEmbeddingLength)) {
		t.Error("the server's vector is not Embed's")
	}
	if got := strings.Join(EmbedWords("parseConfig, HTTPServer x_y2"), " "); got != "parse config httpserver x y2" {
		t.Errorf("words %q", got)
	}

	// One string, and dimensions.
	_, body = post(t, s, "POST", "/api/embed", `{"model":"embeddinggemma","input":"a cat","dimensions":8}`)
	out = api.EmbedResponse{}
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out.Embeddings) != 1 || len(out.Embeddings[0]) != 8 ||
		math.Abs(dot(out.Embeddings[0], out.Embeddings[0])-1) > 1e-5 {
		t.Errorf("one string with dimensions 8: %s", body)
	}
	// The model is loaded.
	_, body = post(t, s, "GET", "/api/ps", "")
	if !strings.Contains(body, `"name":"embeddinggemma:latest"`) {
		t.Errorf("/api/ps after embedding: %s", body)
	}
}

func TestEmbedRejects(t *testing.T) {
	s := New(t, WithModels(EmbeddingModel()))
	for _, c := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"model":"embeddinggemma","input":[1,2]}`, 400, `{"error":"invalid input type"}`},
		{`{"model":"embeddinggemma","input":{"a":1}}`, 400, `{"error":"invalid input type"}`},
		{`{"model":"nomic-embed-text","input":"x"}`, 404, `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`},
		{`{"input":"x"}`, 400, `{"error":"model is required"}`},
		{`{"model":"embeddinggemma","input":"` + strings.Repeat("word ", 2000) + `","truncate":false}`, 400,
			`{"error":"the input length exceeds the context length"}`},
		{`{"model":"embeddinggemma","input":[]}`, 200, `{"model":"embeddinggemma","embeddings":[]}`},
	} {
		resp, body := post(t, s, "POST", "/api/embed", c.body)
		if resp.StatusCode != c.status || body != c.want {
			t.Errorf("%.60s: %d %s, want %d %s", c.body, resp.StatusCode, body, c.status, c.want)
		}
	}
	if n := len(s.EmbedRequests()); n != 6 {
		t.Errorf("%d embed requests recorded, want 6", n)
	}
}
