package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/prompts/human"
)

// recallLimit is how many messages recall returns at most.
const recallLimit = 8

func recallSpec() spec {
	return spec{
		name: "recall",
		desc: "Search the messages of this project's earlier sessions for words.",
		params: []param{
			{name: "query", typ: typeString, required: true},
		},
	}
}

type recallArgs struct {
	Query string `json:"query"`
}

// recall searches the saved messages of the project's other sessions.
type recall struct {
	base
	m Memory
}

func newRecall(m Memory) *recall {
	return &recall{base: newBase(recallSpec(), memoryOutput), m: m}
}

func (*recall) Kind() Kind { return KindRead }

func (t *recall) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a recallArgs) (Call, error) {
		q := strings.TrimSpace(a.Query)
		if q == "" {
			return nil, fmt.Errorf("argument %q is empty: give words to look for", "query")
		}
		return RunFunc(q, func(ctx context.Context, c Caller) (Result, error) { return t.run(ctx, q, c.Session) }), nil
	})
}

// run searches for q in the sessions but current.
func (t *recall) run(ctx context.Context, q, current string) (Result, error) {
	hits, err := t.m.Sessions.Search(ctx, session.SearchQuery{Text: q, Dir: t.m.Dir, Exclude: current, Limit: recallLimit})
	switch {
	case errors.Is(err, session.ErrNoWords):
		return Errorf("no words", "the query has no words to look for"), nil
	case err != nil:
		return Result{}, err
	case len(hits) == 0:
		return Result{Content: prompts.RecallNone(q), Summary: "nothing found"}, nil
	}
	view := make([]prompts.RecallHit, len(hits))
	for i, h := range hits {
		view[i] = prompts.RecallHit{Session: h.SessionID, Date: h.Created.Local().Format("2006-01-02"),
			Title: clip(h.Title, 80), Role: h.Role, Snippet: h.SnippetWith("", "")}
	}
	return Result{Content: prompts.RecallFound(view), Summary: human.Plural(len(hits), "message")}, nil
}
