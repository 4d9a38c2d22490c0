package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"strconv"
	"time"

	"lathe/config"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/tools"
	"lathe/tools/codeindex"
	"lathe/ui/print"
)

// searchSessions runs lathe sessions search: the saved messages of the
// directory's sessions (of every one with --all) holding the words, best
// first.
func (cmd command) searchSessions(ctx context.Context, stdout, stderr io.Writer) error {
	db, err := openSaved(ctx, cmd.env.get)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	var hits []session.Hit
	if db != nil {
		defer db.Close()
		hits, err = db.Search(ctx, session.SearchQuery{Text: cmd.query, Dir: cmd.scope(), Limit: 50})
		if errors.Is(err, session.ErrNoWords) {
			return usagef("sessions search: %q has no words to look for", cmd.query)
		}
		if err != nil {
			return fmt.Errorf("sessions search: %w", err)
		}
	}
	switch {
	case cmd.json:
		return print.HitsJSON(stdout, hits)
	case len(hits) > 0:
		return print.Hits(stdout, hits, time.Now(), cmd.all)
	}
	fmt.Fprintf(stderr, "lathe: no saved message holds %q\n", cmd.query)
	return nil
}

// memory runs lathe memory list and rm.
func (cmd command) memory(ctx context.Context, stdout, stderr io.Writer) error {
	db, err := openSaved(ctx, cmd.env.get)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if db != nil {
		defer db.Close()
	}
	if cmd.sub == "memory rm" {
		return cmd.forgetFacts(ctx, db, stdout)
	}
	var facts []session.Fact
	if db != nil {
		if facts, err = db.Facts(ctx, cmd.scope()); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	switch {
	case cmd.json:
		return print.FactsJSON(stdout, facts)
	case len(facts) > 0:
		return print.Facts(stdout, facts, cmd.all)
	case cmd.all:
		fmt.Fprintln(stderr, "lathe: no fact is remembered")
	default:
		fmt.Fprintf(stderr, "lathe: no fact is remembered about %s\n", cmd.dir)
	}
	return nil
}

// forgetFacts removes the facts of the working directory named by id:
// every id is checked first, so that a mistyped one removes nothing.
func (cmd command) forgetFacts(ctx context.Context, db *sqlite.DB, stdout io.Writer) error {
	var facts []session.Fact
	if db != nil {
		var err error
		if facts, err = db.Facts(ctx, cmd.dir); err != nil {
			return fmt.Errorf("memory rm: %w", err)
		}
	}
	byID := map[int64]session.Fact{}
	for _, f := range facts {
		byID[f.ID] = f
	}
	var ids []int64
	for _, arg := range cmd.ids {
		id, err := strconv.ParseInt(arg, 10, 64)
		if _, ok := byID[id]; err != nil || !ok {
			return usagef("no fact %q about %s (lathe memory list shows them)", arg, cmd.dir)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		if err := db.DeleteFact(ctx, cmd.dir, id); err != nil && !errors.Is(err, session.ErrFactNotFound) {
			return fmt.Errorf("memory rm: %w", err)
		}
		fmt.Fprintf(stdout, "forgot %d  %s\n", id, byID[id].Text)
	}
	return nil
}

// index runs lathe index: it builds or brings up to date the working
// directory's code index, with the embedding model installed, and says
// what it did. On a terminal, stderr shows how far it has got.
func (cmd command) index(ctx context.Context, stdout, stderr io.Writer) error {
	loaded, err := config.Load(config.Sources{Getenv: cmd.env.get, ProjectDir: cmd.dir, Flags: cmd.flags})
	if err != nil {
		return err
	}
	cfg := loaded.Config
	path, err := storePath(cmd.env.get)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	ws, err := tools.OpenWorkspace(cmd.dir)
	if err != nil {
		return usageError{err.Error()}
	}
	defer ws.Close()
	client := ollamaClient(cfg, cfg.OllamaURL)
	model, err := client.EmbeddingModel(ctx, cfg.Index.Model)
	if err != nil {
		return err
	}
	db, err := sqlite.Open(ctx, path, storeOptions())
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	defer db.Close()
	ix := &indexer{ws: ws, store: db, client: client, cfg: cfg.Index, model: model}
	var progress func(p codeindex.Progress)
	if isTerminal(stderr) {
		progress = func(p codeindex.Progress) {
			fmt.Fprintf(stderr, "\r\x1b[Kindexing with %s: %d of %d files, %d chunks embedded", model, p.Done, p.Files, p.Chunks)
		}
	}
	start := time.Now()
	st, err := ix.update(ctx, nil, progress)
	if progress != nil {
		fmt.Fprint(stderr, "\r\x1b[K")
	}
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	_, err = fmt.Fprintln(stdout, "lathe: "+indexSummary(st, time.Since(start)))
	return err
}
