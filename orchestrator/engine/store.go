package engine

import (
	"context"
	"time"

	"lathe/orchestrator"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/tools/codeindex"
)

// Store is the session database as a session uses it: it records the
// conversation, keeps the checkpoints of its runs, and holds the memory
// of the project (past sessions, facts, the code index).
type Store interface {
	orchestrator.Recorder
	checkpoint.Store
	codeindex.Store
	Search(ctx context.Context, q session.SearchQuery) ([]session.Hit, error)
	AddFact(ctx context.Context, dir, text string, at time.Time) (session.Fact, error)
	Facts(ctx context.Context, dir string) ([]session.Fact, error)
	// PruneCheckpoints keeps the checkpoints of every session within
	// limit bytes.
	PruneCheckpoints(ctx context.Context, limit int64) (int, error)
}

var (
	_ Store = (*sqlite.DB)(nil)
	_ Store = (*sqlite.Lazy)(nil)
)
