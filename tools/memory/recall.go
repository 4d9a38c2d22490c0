package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/prompts/human"
	"lathe/tools"
)

// recallLimit is how many messages recall returns at most.
const recallLimit = 8

type recallArgs struct {
	Query string `json:"query"`
}

// newRecall is recall: it searches the saved messages of the project's
// other sessions.
func newRecall(o Options) tools.Tool {
	return aid{tools.Func("recall", "Search the messages of this project's earlier sessions for words.",
		[]tools.Param{{Name: "query", Type: "string", Required: true}}, tools.KindRead,
		func(a recallArgs) (tools.Call, error) {
			q := strings.TrimSpace(a.Query)
			if q == "" {
				return nil, fmt.Errorf("argument %q is empty: give words to look for", "query")
			}
			return capped(q, func(ctx context.Context, c tools.Caller) (tools.Result, error) {
				return recall(ctx, o, q, c.Session)
			}), nil
		})}
}

// recall searches for q in the sessions but current.
func recall(ctx context.Context, o Options, q, current string) (tools.Result, error) {
	hits, err := o.Sessions.Search(ctx, session.SearchQuery{Text: q, Dir: o.Dir, Exclude: current, Limit: recallLimit})
	switch {
	case errors.Is(err, session.ErrNoWords):
		return tools.Errorf("no words", "the query has no words to look for"), nil
	case err != nil:
		return tools.Result{}, err
	case len(hits) == 0:
		return tools.Result{Content: prompts.RecallNone(q), Summary: "nothing found"}, nil
	}
	view := make([]prompts.RecallHit, len(hits))
	for i, h := range hits {
		view[i] = prompts.RecallHit{Session: h.SessionID, Date: h.Created.Local().Format("2006-01-02"),
			Title: clip(h.Title, 80), Role: h.Role, Snippet: h.SnippetWith("", "")}
	}
	return tools.Result{Content: prompts.RecallFound(view), Summary: human.Plural(len(hits), "message")}, nil
}
