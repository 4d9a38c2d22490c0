// Package memory holds the tools that remember: recall searches the
// project's earlier sessions, search_code its code index, and remember
// keeps a fact about it for the sessions to come.
package memory

import (
	"context"
	"time"
	"unicode/utf8"

	"lathe/orchestrator/session"
	"lathe/tools"
	"lathe/tools/codeindex"
)

// output caps what the memory tools send back: a few results.
const output = 4 << 10

// Options are what the memory tools work with: earlier sessions, facts,
// the code index. A nil collaborator leaves its tool out.
type Options struct {
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

// Tools returns the tools of opts, in the order their definitions are
// sent: recall, search_code, remember. ws is the workspace search_code
// reads to tell files changed since they were indexed. Each is a
// tools.Aid; search_code is tools.Optional.
func Tools(ws *tools.Workspace, opts Options) []tools.Tool {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	var out []tools.Tool
	if opts.Sessions != nil {
		out = append(out, newRecall(opts))
	}
	if opts.Code != nil {
		out = append(out, newSearchCode(ws, opts))
	}
	if opts.Facts != nil {
		out = append(out, newRemember(opts))
	}
	return out
}

// capped is a call of a memory tool: its result is capped to output.
func capped(subject string, run func(context.Context, tools.Caller) (tools.Result, error)) tools.Call {
	return tools.RunFunc(subject, func(ctx context.Context, c tools.Caller) (tools.Result, error) {
		res, err := run(ctx, c)
		res.Content = tools.Cap(res.Content, output)
		return res, err
	})
}

// aid is a memory tool: a tools.Aid.
type aid struct{ tools.Tool }

// Aid implements tools.Aid.
func (aid) Aid() {}

// clip cuts s to n bytes, on a rune's start, with "…" when it cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return s[:n] + "…"
}

var (
	_ tools.Aid      = aid{}
	_ tools.Optional = searchCode{}
)
