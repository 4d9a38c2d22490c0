package codeindex

import (
	"context"
	"time"
)

// Store keeps the indexes of projects, each under its directory. Package
// session/sqlite implements it.
type Store interface {
	// IndexModel is the embedding model the index of dir was made with;
	// "" when dir has none.
	IndexModel(ctx context.Context, dir string) (string, error)
	// ResetIndex empties the index of dir and starts it anew for model.
	ResetIndex(ctx context.Context, dir, model string, at time.Time) error
	// IndexedFiles are the files the index of dir holds, by path.
	IndexedFiles(ctx context.Context, dir string) (map[string]IndexedFile, error)
	// PutFiles records files with their chunks, replacing what the index
	// held of them, in one transaction.
	PutFiles(ctx context.Context, dir string, files []FileChunks) error
	// TouchFile records the size and mtime of a file whose content (its
	// hash) did not change.
	TouchFile(ctx context.Context, dir string, f File) error
	// RemoveFiles takes files out of the index of dir, with their chunks.
	RemoveFiles(ctx context.Context, dir string, paths []string) error
	// IndexVersion changes whenever the chunks of dir do (a time, in
	// nanoseconds); 0 when dir has no index.
	IndexVersion(ctx context.Context, dir string) (int64, error)
	// ChunkIDs are the ids of the chunks of dir, in increasing order.
	ChunkIDs(ctx context.Context, dir string) ([]int64, error)
	// Vectors calls fn with the stored vector of each chunk of dir whose
	// id is in ids (increasing), in id order.
	Vectors(ctx context.Context, dir string, ids []int64, fn func(id int64, vec []byte) error) error
	// VectorSigns calls fn with the signs of the stored vector
	// (EncodeSigns) of each chunk of dir whose id is in ids (increasing),
	// in id order, with the vector's width; the chunks stored without
	// them are left out.
	VectorSigns(ctx context.Context, dir string, ids []int64, fn func(id int64, dims int, signs []byte) error) error
	// WordCounts says how many chunks (of every project) hold each of
	// words, lower-cased, counting up to most+1; a word none holds is
	// left out.
	WordCounts(ctx context.Context, words []string, most int) (map[string]int, error)
	// KeywordHits are the chunks of dir whose words match the FTS5 query
	// match, best first (by bm25), at most limit.
	KeywordHits(ctx context.Context, dir, match string, limit int) ([]int64, error)
	// Chunks are the chunks with the given ids, by id, each with its
	// file as indexed.
	Chunks(ctx context.Context, ids []int64) (map[int64]StoredChunk, error)
	// IndexStats counts the files and chunks of the index of dir.
	IndexStats(ctx context.Context, dir string) (files, chunks int, err error)
}

// File is an indexed file as the index knows it.
type File struct {
	Path  string
	Hash  string // SHA-256 of the content, hex
	Size  int64
	MTime time.Time
}

// IndexedFile is a file as the index holds it, with its chunk count.
type IndexedFile struct {
	File
	Chunks int
}

// StoredChunk is a chunk of the index with its file as indexed.
type StoredChunk struct {
	Chunk
	File File
}

// FileChunks is a file with its chunks, ready to store.
type FileChunks struct {
	File   File
	Chunks []Embedded
}

// Embedded is a chunk with its vector and its words, ready to store.
type Embedded struct {
	Chunk
	Vector []float32
	Words  string
}

// Embedder turns texts into vectors of unit length (provider.Embedder's
// method).
type Embedder interface {
	Embed(ctx context.Context, model string, inputs []string) ([][]float32, error)
}
