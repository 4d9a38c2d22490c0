package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"lathe/orchestrator/engine"
	"lathe/orchestrator/session/sqlite"
	"lathe/tools"
	"lathe/tools/codeindex"
)

// indexCommand is lathe index: it builds or brings up to date the
// working directory's code index, with the embedding model installed,
// and says what it did. On a terminal, stderr shows how far it has got.
type indexCommand struct{ f *Factory }

func newIndex(f *Factory) command { return &indexCommand{f: f} }

func (c *indexCommand) define(fs *pflag.FlagSet)   { c.f.dirFlag(fs) }
func (c *indexCommand) words(args []string) error  { return noWords("index", args) }
func (c *indexCommand) check(*pflag.FlagSet) error { return nil }

func (c *indexCommand) run(ctx context.Context) error {
	f := c.f
	loaded, err := f.Config()
	if err != nil {
		return err
	}
	cfg := loaded.Config
	path, err := f.StorePath()
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	ws, err := tools.OpenWorkspace(f.Dir)
	if err != nil {
		return usageError{err.Error()}
	}
	defer ws.Close()
	be, err := engine.NewBackend(cfg)
	if err != nil {
		return err
	}
	store := sqlite.NewLazy(path, storeOptions()) // made by the first chunk: not when no embedding model is installed
	defer store.Close()
	ix := engine.NewIndexer(ws, store, be.Embedder, cfg.Index, zerolog.Nop())
	model, err := ix.Model(ctx)
	if err != nil {
		return err
	}
	var progress func(p codeindex.Progress)
	if isTerminal(f.ErrOut) {
		progress = func(p codeindex.Progress) {
			fmt.Fprintf(f.ErrOut, "\r\x1b[Kindexing with %s: %d of %d files, %d chunks embedded", model, p.Done, p.Files, p.Chunks)
		}
	}
	start := time.Now()
	st, err := ix.Update(ctx, nil, progress)
	if progress != nil {
		fmt.Fprint(f.ErrOut, "\r\x1b[K")
	}
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	_, err = fmt.Fprintln(f.Out, "lathe: "+engine.IndexSummary(st, time.Since(start)))
	return err
}
