package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/prompts/human"
	"lathe/tools"
	"lathe/tools/codeindex"
	"lathe/tools/memory"
)

// memoryWiring is what lathe remembers of the project, wired for a
// session: the memory tools, the facts and the map for the system
// prompt, and the code index's indexer.
type memoryWiring struct {
	tools   []tools.Tool
	facts   func(ctx context.Context) []string
	repoMap func(ctx context.Context) string
	indexer *Indexer
}

// wireMemory wires the memory of the project in ws, kept in store, as
// the config says. Headless, the code index is only read: a one-shot
// run searches an index made before.
func wireMemory(ws *tools.Workspace, store Store, client provider.Embedder, cfg config.Config, headless bool,
	log zerolog.Logger) *memoryWiring {
	dir := ws.Dir()
	w := &memoryWiring{}
	m := memory.Options{Dir: dir}
	if cfg.Memory.Recall {
		m.Sessions = store
	}
	if cfg.Memory.Facts {
		m.Facts = store
		w.facts = func(ctx context.Context) []string {
			facts, err := store.Facts(ctx, dir)
			if err != nil {
				log.Warn().Err(err).Msg("facts not read")
			}
			texts := make([]string, len(facts))
			for i, f := range facts {
				texts[i] = f.Text
			}
			return texts
		}
	}
	if cfg.Index.Enabled {
		background := cfg.Index.Background && !headless
		ix := NewIndexer(ws, store, client, cfg.Index, log)
		m.Code = codeindex.NewSearcher(store, client)
		m.CodeStatus = ix.status
		m.CodeAvailable = func(ctx context.Context) bool { return ix.available(ctx, background) }
		if background {
			w.indexer = ix
		}
	}
	if n := cfg.Index.MapTokens; n > 0 {
		w.repoMap = func(ctx context.Context) string {
			files, _, err := ws.Files(ctx, codeindex.DefaultMaxFiles)
			if err != nil {
				return ""
			}
			return codeindex.Map(ctx, ws.Root(), files, n)
		}
	}
	w.tools = memory.Tools(ws, m)
	return w
}

// Indexer brings the project's code index up to date with the embedding
// model installed.
type Indexer struct {
	ws     *tools.Workspace
	store  codeindex.Store
	client provider.Embedder
	cfg    config.Index
	log    zerolog.Logger

	mu       sync.Mutex // one update at a time
	model    string     // the embedding model, once found
	progress atomic.Pointer[codeindex.Progress]
}

// NewIndexer is the indexer of the project in ws, kept in store, with
// the embedding models client serves.
func NewIndexer(ws *tools.Workspace, store codeindex.Store, client provider.Embedder, cfg config.Index, log zerolog.Logger) *Indexer {
	return &Indexer{ws: ws, store: store, client: client, cfg: cfg, log: log}
}

// available says whether the code search tool can answer: with background
// indexing, when an embedding model is installed; without, when the
// project has an index whose model is still installed.
func (ix *Indexer) available(ctx context.Context, background bool) bool {
	want := ix.cfg.Model
	if !background {
		m, err := ix.store.IndexModel(ctx, ix.ws.Dir())
		if err != nil || m == "" {
			return false
		}
		want = m
	}
	model, err := ix.client.EmbeddingModel(ctx, want)
	if err != nil {
		ix.log.Info().Err(err).Msg("the code search tool is not offered")
		return false
	}
	ix.mu.Lock()
	ix.model = model
	ix.mu.Unlock()
	return true
}

// Model is the embedding model the index is made with: the configured
// one, or the one installed; found once.
func (ix *Indexer) Model(ctx context.Context) (string, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.findModel(ctx)
}

// findModel is Model, with ix.mu held.
func (ix *Indexer) findModel(ctx context.Context) (string, error) {
	if ix.model == "" {
		model, err := ix.client.EmbeddingModel(ctx, ix.cfg.Model)
		if err != nil {
			return "", err
		}
		ix.model = model
	}
	return ix.model, nil
}

// status says how far a running update has got; "" when none runs.
func (ix *Indexer) status() string {
	p := ix.progress.Load()
	if p == nil {
		return ""
	}
	return fmt.Sprintf("the index is being built: %d of %d files looked at so far", p.Done, p.Files)
}

// Update brings the index up to date, waiting for wait (nil: none)
// before each request to the model server and telling progress (nil:
// no one) of each file.
func (ix *Indexer) Update(ctx context.Context, wait func(context.Context) error, progress func(codeindex.Progress)) (codeindex.Stats, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if _, err := ix.findModel(ctx); err != nil {
		return codeindex.Stats{}, err
	}
	defer ix.progress.Store(nil)
	ix.progress.Store(&codeindex.Progress{})
	return codeindex.Update(ctx, codeindex.Options{
		Dir: ix.ws.Dir(), Root: ix.ws.Root(), List: ix.ws.Files, Store: ix.store, Embedder: ix.client, Model: ix.model,
		MaxFile: ix.cfg.MaxFile, MaxChunks: ix.cfg.MaxChunks, Wait: wait,
		Progress: func(p codeindex.Progress) {
			ix.progress.Store(&p)
			if progress != nil {
				progress(p)
			}
		},
	})
}

// Index implements ui.Indexer. Without an embedding model there is no
// index to keep, and nothing to say but in the log: lathe doctor tells
// what to pull.
func (ix *Indexer) Index(ctx context.Context, wait func(context.Context) error, progress func(done, total int)) (string, error) {
	start := time.Now()
	st, err := ix.Update(ctx, wait, func(p codeindex.Progress) { progress(p.Done, p.Files) })
	if errors.Is(err, provider.ErrNoModel) {
		ix.log.Info().Err(err).Msg("no code index")
		return "no embedding model", nil
	}
	if err != nil {
		return "", err
	}
	return IndexSummary(st, time.Since(start)), nil
}

// IndexSummary says what an update did, in a line.
func IndexSummary(st codeindex.Stats, took time.Duration) string {
	s := fmt.Sprintf("the code index holds %s, %s (%s): %d read and embedded, %d unchanged",
		human.Plural(st.Files, "file"), human.Plural(st.Chunks, "chunk"), st.Model, st.Indexed, st.Unchanged)
	if st.Removed > 0 {
		s += fmt.Sprintf(", %d taken out", st.Removed)
	}
	if st.Skipped > 0 {
		s += fmt.Sprintf(", %d left out (binary or too large)", st.Skipped)
	}
	if st.Reset {
		s += "; made anew for another model"
	}
	if st.Full {
		s += "; full: some files were left out (index.max_chunks)"
	}
	return s + fmt.Sprintf(", in %s", took.Round(100*time.Millisecond))
}
