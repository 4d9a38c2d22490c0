package tools

import (
	"context"
	"slices"
	"time"

	"lathe/orchestrator/session"
	"lathe/tools/codeindex"
)

// memoryOutput caps what the memory tools send back: a few results.
const memoryOutput = 4 << 10

// Memory is what the tools that remember work with: earlier sessions,
// facts, the code index. A nil collaborator leaves its tool out.
type Memory struct {
	// Dir is the project's directory, absolute: what the memory is of.
	Dir string
	// Sessions searches the saved messages (recall).
	Sessions Recaller
	// Facts keeps the facts the user approves (remember).
	Facts Memorizer
	// Code searches the code index (search_code).
	Code CodeSearcher
	// CodeAvailable says, once per session, whether search_code can
	// answer: an embedding model is installed, and the project is indexed
	// or being indexed. Nil means it can.
	CodeAvailable func(ctx context.Context) bool
	// CodeStatus says how far indexing has got, while it runs ("indexing:
	// 120 of 800 files"); nil or "" when it is not running.
	CodeStatus func() string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Recaller searches the saved messages of sessions.
type Recaller interface {
	Search(ctx context.Context, q session.SearchQuery) ([]session.Hit, error)
}

// Memorizer keeps facts about projects.
type Memorizer interface {
	AddFact(ctx context.Context, dir, text string, at time.Time) (session.Fact, error)
}

// CodeSearcher searches a project's code index.
type CodeSearcher interface {
	Search(ctx context.Context, q codeindex.Query) ([]codeindex.Result, error)
}

// MemoryTools returns the tools of m, in the order their definitions are
// sent: recall, search_code, remember. ws is the workspace search_code
// reads to tell files changed since they were indexed.
func MemoryTools(ws *Workspace, m Memory) []Tool {
	if m.Now == nil {
		m.Now = time.Now
	}
	var out []Tool
	if m.Sessions != nil {
		out = append(out, newRecall(m))
	}
	if m.Code != nil {
		out = append(out, newSearchCode(ws, m))
	}
	if m.Facts != nil {
		out = append(out, newRemember(m))
	}
	return out
}

// Aid is a tool that looks things up or keeps them for later (earlier
// sessions, facts, the code index) rather than doing the work. Build mode
// following an approved plan leaves the aids out: the plan was made with
// them, and its steps and checklist take their room in the prompt.
type Aid interface {
	Aid()
}

func (*recall) Aid()     {}
func (*searchCode) Aid() {}
func (*remember) Aid()   {}

// Optional is a tool offered only when what it needs is there (a model
// installed, say): a session asks once, before its first request, and
// keeps the answer, so that its requests stay the same.
type Optional interface {
	Available(ctx context.Context) bool
}

// Available returns the registry of r's tools that are available: those
// that are not Optional, and the Optional ones that say so.
func (r *Registry) Available(ctx context.Context) *Registry {
	kept := slices.DeleteFunc(r.All(), func(t Tool) bool {
		o, ok := t.(Optional)
		return ok && !o.Available(ctx)
	})
	if len(kept) == len(r.tools) {
		return r
	}
	return NewRegistry(kept...)
}
