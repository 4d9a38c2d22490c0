package codeindex_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
	"lathe/tools/codeindex"
)

// benchDims is the width of the vectors of embeddinggemma and
// nomic-embed-text.
const benchDims = 768

// instantEmbedder embeds in process, at once: the fake server's vectors
// without the HTTP, so that a benchmark measures lathe and not the model.
type instantEmbedder struct{}

func (instantEmbedder) Embed(_ context.Context, _ string, inputs []string) ([][]float32, error) {
	out := make([][]float32, len(inputs))
	for i, in := range inputs {
		out[i] = ollamatest.Embed(in, benchDims)
	}
	return out, nil
}

// benchTree writes files Go files of funcs functions each under dir.
func benchTree(b *testing.B, dir string, files, funcs int) {
	b.Helper()
	words := strings.Fields("parse token scan buffer config cache request handler index search vector chunk file model server")
	r := rand.New(rand.NewPCG(1, 2))
	for f := range files {
		var src strings.Builder
		fmt.Fprintf(&src, "package p%d\n\nimport \"fmt\"\n", f%50)
		for fn := range funcs {
			w1, w2 := words[r.IntN(len(words))], words[r.IntN(len(words))]
			fmt.Fprintf(&src, "\n// %s%d %ss the %s and returns what it found.\nfunc %s%d(in []string) (string, error) {\n",
				w1, fn, w1, w2, strings.ToUpper(w1[:1])+w1[1:], fn)
			for l := range 8 {
				fmt.Fprintf(&src, "\tif len(in) > %d {\n\t\treturn fmt.Sprint(in[%d], %q), nil\n\t}\n", l, l, w2)
			}
			src.WriteString("\treturn \"\", nil\n}\n")
		}
		path := filepath.Join(dir, fmt.Sprintf("pkg%d", f%50), fmt.Sprintf("file%d.go", f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndex measures a whole index of a tree of 200 Go files of 10
// functions (2,000 chunks), the model's time left out: reading, cutting,
// hashing and storing, in chunks a second.
func BenchmarkIndex(b *testing.B) {
	dir := b.TempDir()
	benchTree(b, dir, 200, 10)
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	var chunks int
	var took time.Duration
	for i := 0; b.Loop(); i++ {
		db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), fmt.Sprintf("lathe%d.db", i)), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		st, err := codeindex.Update(b.Context(), codeindex.Options{Dir: dir, Root: ws.Root(), List: ws.Files, Store: db,
			Embedder: instantEmbedder{}, Model: "bench"})
		took += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		chunks += st.Embedded
		db.Close()
	}
	b.ReportMetric(float64(chunks)/took.Seconds(), "chunks/s")
}

// BenchmarkIndexUnchanged measures bringing the same index up to date
// when nothing changed: a stat of each file.
func BenchmarkIndexUnchanged(b *testing.B) {
	dir := b.TempDir()
	benchTree(b, dir, 200, 10)
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	db := sqlitetest.Open(b)
	opts := codeindex.Options{Dir: dir, Root: ws.Root(), List: ws.Files, Store: db, Embedder: instantEmbedder{}, Model: "bench"}
	if _, err := codeindex.Update(b.Context(), opts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if st, err := codeindex.Update(b.Context(), opts); err != nil || st.Unchanged != 200 {
			b.Fatal(st, err)
		}
	}
}

// seedIndex stores n chunks of random vectors, 100 a file, in the index
// of dir in a new database, and returns it with its size on disk.
func seedIndex(b *testing.B, dir string, n int) (*sqlite.DB, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "lathe.db")
	db, err := sqlite.Open(b.Context(), path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	if err := db.ResetIndex(ctx, dir, "bench", time.Now()); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	// The words of code follow Zipf's law: a few are everywhere, most are
	// rare. 5,000 identifiers, drawn so.
	zipf := rand.NewZipf(rand.New(rand.NewPCG(5, 6)), 1.1, 1, 4999)
	for f := 0; f*100 < n; f++ {
		var chunks []codeindex.Embedded
		for c := 0; c < 100 && f*100+c < n; c++ {
			v := make([]float32, benchDims)
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			unitLength(v)
			// A chunk of a typical size: 25 lines of 6 words, about 900
			// bytes.
			var text strings.Builder
			for range 25 {
				text.WriteString("\t")
				for range 6 {
					fmt.Fprintf(&text, "w%d ", zipf.Uint64())
				}
				text.WriteString("\n")
			}
			ch := codeindex.Chunk{Path: fmt.Sprintf("f%d.go", f), Start: c*30 + 1, End: c*30 + 25, Symbol: fmt.Sprintf("F%d", c), Text: text.String()}
			chunks = append(chunks, codeindex.Embedded{Chunk: ch, Vector: v, Words: codeindex.Words(ch)})
		}
		file := codeindex.File{Path: fmt.Sprintf("f%d.go", f), Hash: fmt.Sprint(f), Size: 1, MTime: time.Now()}
		if err := db.PutFiles(ctx, dir, []codeindex.FileChunks{{File: file, Chunks: chunks}}); err != nil {
			b.Fatal(err)
		}
	}
	db.Close() // the write-ahead log checkpointed into the file
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	if db, err = sqlite.Open(b.Context(), path, sqlite.Options{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db, fi.Size()
}

func unitLength(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	n := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= n
	}
}

// benchQuery holds a common word (in about one chunk in six), a middling
// one and a rare one of the seeded index.
const benchQuery = "how is w20 kept in w300 by w3000"

// BenchmarkSearch measures a search of an index of 10,000 and of 100,000
// chunks with 768-wide vectors, the query's embedding left out: warm (the
// vectors in memory, checked against the index's ids) and cold (the
// first search after the index changed reads every vector). It reports
// the database's size per 1,000 chunks.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		if testing.Short() && n > 10_000 {
			continue
		}
		dir := "/bench/project"
		db, size := seedIndex(b, dir, n)
		b.Run(fmt.Sprintf("warm-%dk", n/1000), func(b *testing.B) {
			s := codeindex.NewSearcher(db, instantEmbedder{})
			q := codeindex.Query{Dir: dir, Text: benchQuery}
			if _, err := s.Search(b.Context(), q); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if res, err := s.Search(b.Context(), q); err != nil || len(res) != 8 {
					b.Fatal(len(res), err)
				}
			}
			b.ReportMetric(float64(size)/float64(n)*1000/(1<<20), "MiB/1k-chunks")
		})
		b.Run(fmt.Sprintf("cold-%dk", n/1000), func(b *testing.B) {
			q := codeindex.Query{Dir: dir, Text: benchQuery}
			for b.Loop() {
				s := codeindex.NewSearcher(db, instantEmbedder{})
				if _, err := s.Search(b.Context(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
