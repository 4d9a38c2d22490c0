package codeindex_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/config"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
	"lathe/tools/codeindex"
)

// project is a project on disk with its index's collaborators.
type project struct {
	dir string
	ws  *tools.Workspace
	db  *sqlite.DB
	srv *ollamatest.Server
	emb *ollama.Client
}

func newProject(t *testing.T, files map[string]string) *project {
	t.Helper()
	p := &project{dir: t.TempDir()}
	p.write(t, files)
	var err error
	if p.ws, err = tools.OpenWorkspace(p.dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.ws.Close() })
	p.db = sqlitetest.Open(t)
	p.srv = ollamatest.New(t, ollamatest.WithModels(ollamatest.DefaultModel(), ollamatest.EmbeddingModel(),
		ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{ollamatest.CapEmbedding}, EmbeddingLength: 64}))
	u, _ := url.Parse(p.srv.URL())
	p.emb = ollama.New(ollama.Options{URL: u, Options: config.Defaults().Options})
	return p
}

func (p *project) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(p.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (p *project) options(model string) codeindex.Options {
	return codeindex.Options{Dir: p.dir, Root: p.ws.Root(), List: p.ws.Files, Store: p.db, Embedder: p.emb, Model: model}
}

func (p *project) update(t *testing.T, opts codeindex.Options) codeindex.Stats {
	t.Helper()
	st, err := codeindex.Update(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// embedded are the paths of the chunks sent to the model since the
// request numbered from (each input starts with its chunk's path).
func (p *project) embedded(from int) []string {
	var out []string
	for _, r := range p.srv.EmbedRequests()[from:] {
		for _, in := range r.Input.([]any) {
			text := strings.TrimPrefix(in.(string), "title: none | text: ")
			path, _, _ := strings.Cut(text, " ")
			path, _, _ = strings.Cut(path, "\n")
			if !slices.Contains(out, path) {
				out = append(out, path)
			}
		}
	}
	slices.Sort(out)
	return out
}

func goFile(pkg, fn, body string) string {
	return fmt.Sprintf("package %s\n\n// %s %s\nfunc %s() {}\n", pkg, fn, body, fn)
}

func TestIndexTree(t *testing.T) {
	p := newProject(t, map[string]string{
		".gitignore":      "build/\n",
		"lex/lex.go":      goFile("lex", "Scan", "reads the next token"),
		"parse/parse.go":  goFile("parse", "Parse", "builds the syntax tree"),
		"docs/guide.md":   "# Guide\n\nRun the tests with make check.\n",
		"build/gen.go":    goFile("gen", "Generated", "is ignored"),
		"assets/logo.png": "\x89PNG\r\n\x1a\n\x00\x00binary",
		"big.txt":         strings.Repeat("big file line\n", 30000),
	})
	st := p.update(t, p.options("embeddinggemma:latest"))
	if st.Indexed != 4 || st.Skipped != 2 || st.Files != 4 || st.Chunks != 4 || st.Embedded != 4 || st.Full || st.Reset {
		t.Errorf("stats %+v", st)
	}
	if got := p.embedded(0); !slices.Equal(got, []string{".gitignore", "docs/guide.md", "lex/lex.go", "parse/parse.go"}) {
		t.Errorf("embedded %q", got)
	}

	// Nothing changed: nothing is read by the model again.
	n := len(p.srv.EmbedRequests())
	st = p.update(t, p.options("embeddinggemma:latest"))
	if st.Indexed != 0 || st.Unchanged != 4 || len(p.srv.EmbedRequests()) != n {
		t.Errorf("again: stats %+v, %d requests more", st, len(p.srv.EmbedRequests())-n)
	}

	// One file edited, one touched (same content, later mtime), one
	// removed, one added: only the edited and the added ones are embedded.
	p.write(t, map[string]string{"lex/lex.go": goFile("lex", "Scan", "reads the next token, now faster"),
		"new/new.go": goFile("new", "Fresh", "is new")})
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(p.dir, "parse/parse.go"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(p.dir, "docs/guide.md")); err != nil {
		t.Fatal(err)
	}
	st = p.update(t, p.options("embeddinggemma:latest"))
	if got := p.embedded(n); !slices.Equal(got, []string{"lex/lex.go", "new/new.go"}) {
		t.Errorf("after the edits, embedded %q", got)
	}
	if st.Indexed != 2 || st.Unchanged != 2 || st.Removed != 1 || st.Files != 4 || st.Chunks != 4 {
		t.Errorf("after the edits: stats %+v", st)
	}
	files, err := p.db.IndexedFiles(t.Context(), p.dir)
	if err != nil {
		t.Fatal(err)
	}
	if f := files["parse/parse.go"]; !f.MTime.Equal(later.Truncate(time.Nanosecond)) && f.MTime.Unix() != later.Unix() {
		t.Errorf("the touched file's mtime is not recorded: %v", f.MTime)
	}

	// Another model: the index is made anew.
	n = len(p.srv.EmbedRequests())
	st = p.update(t, p.options("nomic-embed-text"))
	if !st.Reset || st.Indexed != 4 || st.Chunks != 4 {
		t.Errorf("another model: stats %+v", st)
	}
	if m, _ := p.db.IndexModel(t.Context(), p.dir); m != "nomic-embed-text" {
		t.Errorf("the index's model is %q", m)
	}
	if r := p.srv.EmbedRequests()[n]; !strings.HasPrefix(r.Input.([]any)[0].(string), "search_document: ") {
		t.Errorf("nomic-embed-text's documents go without their prefix: %q", r.Input)
	}
}

// TestIndexWaits: every request to the model waits for Wait, and an
// update cancelled there keeps what it had stored.
func TestIndexWaits(t *testing.T) {
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("f%d.go", i)] = goFile("p", fmt.Sprintf("F%d", i), "does a thing")
	}
	p := newProject(t, files)
	opts := p.options("embeddinggemma")
	opts.Batch = 3
	waits := 0
	opts.Wait = func(ctx context.Context) error {
		waits++
		if waits == 3 {
			return context.Canceled
		}
		return nil
	}
	_, err := codeindex.Update(t.Context(), opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("update: %v, want the wait's error", err)
	}
	if got := len(p.srv.EmbedRequests()); got != 2 || waits != 3 {
		t.Errorf("%d requests after %d waits, want 2 after 3", got, waits)
	}
	indexed, _, err := p.db.IndexStats(t.Context(), p.dir)
	if err != nil || indexed != 6 {
		t.Errorf("%d files indexed before the cancellation, want 6 (%v)", indexed, err)
	}
	opts.Wait = nil
	if st := p.update(t, opts); st.Indexed != 4 || st.Unchanged != 6 {
		t.Errorf("resumed: %+v", st)
	}
}

// TestIndexFull: past MaxChunks, files are left out and the index says
// so; past MaxFiles too.
func TestIndexFull(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("f%d.go", i)] = goFile("p", fmt.Sprintf("F%d", i), "does a thing")
	}
	p := newProject(t, files)
	opts := p.options("embeddinggemma")
	opts.MaxChunks = 4
	if st := p.update(t, opts); !st.Full || st.Chunks != 4 {
		t.Errorf("max 4 chunks: %+v", st)
	}
	opts.MaxChunks, opts.MaxFiles = 0, 2
	if st := p.update(t, opts); !st.Full || st.Files != 2 || st.Removed != 2 {
		t.Errorf("max 2 files: %+v", st)
	}
}
