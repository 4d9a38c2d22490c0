package codeindex

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of an index, unless Options say otherwise.
const (
	DefaultMaxFile   = 256 << 10 // bytes: larger files are left out
	DefaultMaxChunks = 100_000
	DefaultMaxFiles  = 20_000
	defaultBatch     = 32 // chunks sent to the model in one request
)

// Options are what Update works with.
type Options struct {
	// Dir is the project's directory, absolute: the index's key.
	Dir string
	// Root reads the project's files.
	Root *os.Root
	// List lists the files to index (paths relative to Root, with
	// slashes), at most limit, saying whether there were more.
	List func(ctx context.Context, limit int) ([]string, bool, error)
	// Store keeps the index.
	Store Store
	// Embedder and Model make the vectors.
	Embedder Embedder
	Model    string
	// MaxFile, MaxFiles and MaxChunks bound the index; zero means the
	// defaults.
	MaxFile   int64
	MaxFiles  int
	MaxChunks int
	// Batch is how many chunks go to the model in one request; zero
	// means 32.
	Batch int
	// Wait, when set, is called before each request to the model: it
	// returns when the model server may be used (no turn of the chat is
	// under way), or ctx's error.
	Wait func(ctx context.Context) error
	// Progress, when set, is told of each file looked at.
	Progress func(Progress)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Progress is how far an update has got.
type Progress struct {
	Files  int // the files to look at
	Done   int // looked at
	Chunks int // chunks embedded so far
}

// Stats say what an update did.
type Stats struct {
	Model     string
	Files     int // files in the index after it
	Chunks    int // chunks in the index after it
	Indexed   int // files read and embedded
	Unchanged int // files whose content was already indexed
	Removed   int // files gone (or now ignored, binary or too large) taken out
	Skipped   int // binary or too large files left out
	Embedded  int // chunks embedded
	// Full says that the index reached MaxFiles or MaxChunks: some files
	// were left out.
	Full bool
	// Reset says that the index was made anew (another model).
	Reset bool
}

func (o *Options) defaults() {
	if o.MaxFile <= 0 {
		o.MaxFile = DefaultMaxFile
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.MaxChunks <= 0 {
		o.MaxChunks = DefaultMaxChunks
	}
	if o.Batch <= 0 {
		o.Batch = defaultBatch
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Update brings the index of opts.Dir up to date: files new or changed
// since they were indexed (their hash differs) are cut into chunks and
// embedded, files gone are taken out, the others cost a stat (or a read
// and a hash when their mtime changed). What was indexed before an error
// or a cancellation stays indexed.
func Update(ctx context.Context, opts Options) (Stats, error) {
	opts.defaults()
	u := updater{opts: opts, stats: Stats{Model: opts.Model}}
	if err := u.run(ctx); err != nil {
		return u.stats, err
	}
	files, chunks, err := opts.Store.IndexStats(ctx, opts.Dir)
	u.stats.Files, u.stats.Chunks = files, chunks
	return u.stats, err
}

type updater struct {
	opts    Options
	stats   Stats
	chunks  int        // chunks in the index, as the update goes
	pending []fileWork // files read, waiting for their vectors
	queued  int        // their chunks
	prog    Progress
}

// fileWork is a file to store once its chunks have their vectors.
type fileWork struct {
	file   File
	chunks []Chunk
}

func (u *updater) run(ctx context.Context) error {
	o := u.opts
	model, err := o.Store.IndexModel(ctx, o.Dir)
	if err != nil {
		return err
	}
	if model != o.Model {
		if err := o.Store.ResetIndex(ctx, o.Dir, o.Model, o.Now()); err != nil {
			return err
		}
		u.stats.Reset = model != ""
	}
	paths, more, err := o.List(ctx, o.MaxFiles)
	if err != nil {
		return err
	}
	u.stats.Full = more
	indexed, err := o.Store.IndexedFiles(ctx, o.Dir)
	if err != nil {
		return err
	}
	if err := u.removeGone(ctx, paths, indexed); err != nil {
		return err
	}
	for _, f := range indexed {
		u.chunks += f.Chunks
	}
	u.prog.Files = len(paths)
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		old, known := indexed[p]
		if err := u.look(ctx, p, old, known); err != nil {
			return err
		}
		u.prog.Done++
		if o.Progress != nil {
			o.Progress(u.prog)
		}
	}
	return u.flush(ctx)
}

// removeGone takes out the indexed files that are no longer listed.
func (u *updater) removeGone(ctx context.Context, paths []string, indexed map[string]IndexedFile) error {
	listed := make(map[string]bool, len(paths))
	for _, p := range paths {
		listed[p] = true
	}
	var gone []string
	for p := range indexed {
		if !listed[p] {
			gone = append(gone, p)
			delete(indexed, p)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	u.stats.Removed += len(gone)
	return u.opts.Store.RemoveFiles(ctx, u.opts.Dir, gone)
}

// look indexes the file at p if it changed since it was indexed (old,
// when known).
func (u *updater) look(ctx context.Context, p string, old IndexedFile, known bool) error {
	o := u.opts
	info, err := o.Root.Stat(p)
	if err != nil || !info.Mode().IsRegular() {
		return u.leaveOut(ctx, p, old, known, false)
	}
	f := File{Path: p, Size: info.Size(), MTime: info.ModTime()}
	switch {
	case f.Size > o.MaxFile:
		return u.leaveOut(ctx, p, old, known, true)
	case known && old.Size == f.Size && old.MTime.Equal(f.MTime):
		u.stats.Unchanged++
		return nil
	}
	data, err := readFile(o.Root, p, o.MaxFile)
	if err != nil || isBinary(data) {
		return u.leaveOut(ctx, p, old, known, err == nil)
	}
	sum := sha256.Sum256(data)
	f.Hash = hex.EncodeToString(sum[:])
	if known && old.Hash == f.Hash {
		u.stats.Unchanged++
		return o.Store.TouchFile(ctx, o.Dir, f)
	}
	chunks := Split(p, data)
	if u.chunks-old.Chunks+len(chunks) > o.MaxChunks {
		u.stats.Full = true
		return nil // the index keeps what it had of it
	}
	u.chunks += len(chunks) - old.Chunks
	u.pending = append(u.pending, fileWork{file: f, chunks: chunks})
	u.queued += len(chunks)
	if u.queued >= o.Batch {
		return u.flush(ctx)
	}
	return nil
}

// leaveOut skips a file that cannot be indexed (skipped: binary or too
// large), taking it out of the index if it was in.
func (u *updater) leaveOut(ctx context.Context, p string, old IndexedFile, known, skipped bool) error {
	if skipped {
		u.stats.Skipped++
	}
	if !known {
		return nil
	}
	u.stats.Removed++
	u.chunks -= old.Chunks
	return u.opts.Store.RemoveFiles(ctx, u.opts.Dir, []string{p})
}

// flush embeds the chunks of the files read and stores the files.
func (u *updater) flush(ctx context.Context) error {
	o := u.opts
	var inputs []string
	for _, w := range u.pending {
		for _, c := range w.chunks {
			inputs = append(inputs, DocumentText(o.Model, c))
		}
	}
	vectors := make([][]float32, 0, len(inputs))
	for start := 0; start < len(inputs); start += o.Batch {
		if o.Wait != nil {
			if err := o.Wait(ctx); err != nil {
				return err
			}
		}
		batch := inputs[start:min(start+o.Batch, len(inputs))]
		vs, err := o.Embedder.Embed(ctx, o.Model, batch)
		if err != nil {
			return fmt.Errorf("embed with %s: %w", o.Model, err)
		}
		if len(vs) != len(batch) {
			return fmt.Errorf("embed with %s: %d vectors for %d chunks", o.Model, len(vs), len(batch))
		}
		vectors = append(vectors, vs...)
		u.prog.Chunks += len(vs)
	}
	i := 0
	files := make([]FileChunks, len(u.pending))
	for k, w := range u.pending {
		emb := make([]Embedded, len(w.chunks))
		for j, c := range w.chunks {
			emb[j] = Embedded{Chunk: c, Vector: vectors[i], Words: Words(c)}
			i++
		}
		files[k] = FileChunks{File: w.file, Chunks: emb}
	}
	if len(files) > 0 {
		if err := o.Store.PutFiles(ctx, o.Dir, files); err != nil {
			return err
		}
	}
	u.stats.Indexed += len(files)
	u.stats.Embedded += i
	u.pending, u.queued = u.pending[:0], 0
	return nil
}

// readFile reads the file at p, at most limit bytes (a file grown past
// limit since its stat is cut there).
func readFile(root *os.Root, p string, limit int64) ([]byte, error) {
	f, err := root.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// isBinary reports whether data is not text: a NUL byte in its first 8 KiB,
// or bytes that are not UTF-8.
func isBinary(data []byte) bool {
	head := data[:min(len(data), 8<<10)]
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(data)
}

// DocumentText is what the model is given to embed a chunk: the chunk's
// path, symbol and text, after the prefix the model expects for a
// document (see prefixes).
func DocumentText(model string, c Chunk) string {
	_, doc := prefixes(model)
	head := c.Path
	if c.Symbol != "" {
		head += " " + c.Symbol
	}
	return doc + head + "\n" + c.Text
}

// QueryText is what the model is given to embed a query.
func QueryText(model, query string) string {
	q, _ := prefixes(model)
	return q + query
}

// prefixes are the task prefixes a model was trained to embed queries and
// documents with, where its model card asks for them: nomic-embed-text's
// "search_query: " and "search_document: ", embeddinggemma's retrieval
// prompts. Other models get none.
func prefixes(model string) (query, doc string) {
	base, _, _ := strings.Cut(strings.ToLower(model), ":")
	switch base {
	case "nomic-embed-text":
		return "search_query: ", "search_document: "
	case "embeddinggemma":
		return "task: code retrieval | query: ", "title: none | text: "
	}
	return "", ""
}

// ErrNoIndex is returned by a search of a project that has no index.
var ErrNoIndex = errors.New("the project has no code index yet")
