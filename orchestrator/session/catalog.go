package session

import "context"

// Catalog finds saved sessions. Package session/sqlite implements it.
type Catalog interface {
	// Load returns a session with its messages (by seq), its latest
	// compaction, its mode records and its last run; ErrNotFound when
	// absent.
	Load(ctx context.Context, id string) (Saved, error)
	// Find resolves an id or a unique prefix of one (ErrNotFound,
	// ErrAmbiguousID).
	Find(ctx context.Context, prefix string) (string, error)
	// Latest returns the most recently updated session in dir
	// (ErrNotFound when there is none).
	Latest(ctx context.Context, dir string) (string, error)
	// List returns the sessions in dir, or in every directory when dir
	// is empty, most recently updated first.
	List(ctx context.Context, dir string) ([]Summary, error)
	// Prompts returns the prompts the user sent in the sessions in dir
	// (not lathe's notes), newest first, each once, at most limit.
	Prompts(ctx context.Context, dir string, limit int) ([]string, error)
}
