package engine

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
)

// TestBackgroundIndexer: the UI's indexer says nothing but in the log
// when no embedding model is installed (doctor says what to pull), and
// indexes the project when one is, waiting for the gate before each
// request to the model.
func TestBackgroundIndexer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	db := sqlitetest.Open(t)
	for _, c := range []struct {
		models []ollamatest.Model
		want   string
	}{
		{[]ollamatest.Model{ollamatest.DefaultModel()}, "no embedding model"},
		{[]ollamatest.Model{ollamatest.DefaultModel(), ollamatest.EmbeddingModel()}, "the code index holds 1 file, 1 chunk (embeddinggemma:latest)"},
	} {
		srv := ollamatest.New(t, ollamatest.WithModels(c.models...))
		u, _ := url.Parse(srv.URL())
		cfg := config.Defaults()
		ix := NewIndexer(ws, db, ollama.New(ollama.Options{URL: u, Options: cfg.Options}), cfg.Index, zerolog.Nop())
		waits := 0
		got, err := ix.Index(t.Context(), func(context.Context) error { waits++; return nil }, func(int, int) {})
		if err != nil || !strings.HasPrefix(got, c.want) {
			t.Errorf("Index: %q, %v; want %q", got, err, c.want)
		}
		if n := len(srv.EmbedRequests()); n != waits {
			t.Errorf("%d requests to the model, %d waits for the gate", n, waits)
		}
	}
}
