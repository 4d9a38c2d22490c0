package ollama

import (
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

// TestPreloadAndLoaded: a preload loads the model with the session's
// window, which /api/ps then shows, with its share of GPU memory; the
// first request after it is warm.
func TestPreloadAndLoaded(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b",
		LoadedSize: 10 << 30, LoadedVRAM: 8 << 30}))
	c := newClient(t, srv.URL())
	info, err := c.Model(t.Context(), "qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	if info.KVBytesPerToken != 36*8*(128+128)*2 || info.ParameterSize == "" {
		t.Errorf("model info %+v", info)
	}
	if l, err := c.Loaded(t.Context()); err != nil || len(l) != 0 {
		t.Fatalf("loaded before the preload: %+v, %v", l, err)
	}
	if err := c.Preload(t.Context(), info); err != nil {
		t.Fatal(err)
	}
	l, err := c.Loaded(t.Context())
	if err != nil || len(l) != 1 || l[0].Name != "qwen3:8b" || l[0].ContextLength != 32768 || l[0].Size != 10<<30 || l[0].VRAM != 8<<30 {
		t.Fatalf("loaded after the preload: %+v, %v", l, err)
	}
	var last provider.Chunk
	srv.Script(ollamatest.Reply{Content: "hello"})
	req := &provider.Request{Model: info, Messages: []provider.Message{{Role: "user", Content: "hi"}}}
	if err := c.Chat(t.Context(), req, func(ch provider.Chunk) error { last = ch; return nil }); err != nil {
		t.Fatal(err)
	}
	if last.Metrics.LoadDuration > 100e6 {
		t.Errorf("the request after a preload loaded the model again: %v", last.Metrics.LoadDuration)
	}
	if v, err := c.Version(t.Context()); err != nil || v == "" {
		t.Errorf("version %q, %v", v, err)
	}
}

func TestKVBytesPerToken(t *testing.T) {
	for _, tt := range []struct {
		name string
		info map[string]any
		want int64
	}{
		{"qwen3", map[string]any{"general.architecture": "qwen3", "qwen3.block_count": 36.0, "qwen3.attention.head_count": 32.0,
			"qwen3.attention.head_count_kv": 8.0, "qwen3.attention.key_length": 128.0, "qwen3.attention.value_length": 128.0}, 147456},
		{"head size from the embedding", map[string]any{"general.architecture": "llama", "llama.block_count": 32.0,
			"llama.attention.head_count": 32.0, "llama.attention.head_count_kv": 8.0, "llama.embedding_length": 4096.0}, 32 * 8 * 256 * 2},
		{"kv heads by layer", map[string]any{"general.architecture": "x", "x.block_count": 3.0, "x.attention.head_count": 4.0,
			"x.attention.head_count_kv": []any{2.0, 0.0, 4.0}, "x.attention.key_length": 64.0, "x.attention.value_length": 64.0}, 6 * 128 * 2},
		{"nothing known", map[string]any{"general.architecture": "x"}, 0},
	} {
		if got := kvBytesPerToken(tt.info); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}
