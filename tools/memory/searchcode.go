package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"lathe/prompts"
	"lathe/prompts/human"
	"lathe/tools"
	"lathe/tools/codeindex"
)

const (
	maxQuery        = 1000 // bytes of a query
	searchCodeLimit = 8    // results
	excerptLines    = 4    // lines of each shown
	excerptWidth    = 120  // bytes of each line shown
)

type searchCodeArgs struct {
	Query string `json:"query"`
}

// searchCode is search_code: it searches the project's semantic code
// index. It is offered only when the index can answer.
type searchCode struct {
	aid
	available func(ctx context.Context) bool
}

func newSearchCode(ws *tools.Workspace, o Options) searchCode {
	t := tools.Func("search_code", "Find code by what it does, described in words; gives file:line ranges.",
		[]tools.Param{{Name: "query", Type: "string", Required: true}}, tools.KindRead,
		func(a searchCodeArgs) (tools.Call, error) {
			q := strings.TrimSpace(a.Query)
			switch {
			case q == "":
				return nil, fmt.Errorf("argument %q is empty: say what the code does", "query")
			case len(q) > maxQuery:
				return nil, fmt.Errorf("argument %q is too long: describe the code in a sentence or two", "query")
			}
			return capped(q, func(ctx context.Context, _ tools.Caller) (tools.Result, error) {
				return searchCodeFor(ctx, ws, o, q)
			}), nil
		})
	return searchCode{aid: aid{t}, available: o.CodeAvailable}
}

// Available implements tools.Optional.
func (t searchCode) Available(ctx context.Context) bool {
	return t.available == nil || t.available(ctx)
}

// searchCodeFor searches the code index of ws for q.
func searchCodeFor(ctx context.Context, ws *tools.Workspace, o Options, q string) (tools.Result, error) {
	status := ""
	if o.CodeStatus != nil {
		status = o.CodeStatus()
	}
	res, err := o.Code.Search(ctx, codeindex.Query{Dir: o.Dir, Root: ws.Root(), Text: q, Limit: searchCodeLimit})
	switch {
	case errors.Is(err, codeindex.ErrNoIndex):
		return tools.Result{Content: prompts.CodeNoIndex(status), IsError: true, Summary: "no index yet"}, nil
	case err != nil:
		return tools.Errorf("failed", err.Error()), nil // the model server, most likely: the model can go on with grep
	case len(res) == 0:
		return tools.Result{Content: prompts.CodeNone(status), Summary: "nothing found"}, nil
	}
	hits := make([]prompts.CodeHit, len(res))
	for i, r := range res {
		hits[i] = prompts.CodeHit{Where: fmt.Sprintf("%s:%d-%d", r.Path, r.Start, r.End), Symbol: r.Symbol,
			Changed: r.Changed, Excerpt: excerpt(r.Text)}
	}
	return tools.Result{Content: prompts.CodeFound(hits, status), Summary: human.Plural(len(res), "chunk")}, nil
}

// excerpt is a chunk's first lines that say something, indented, each cut
// to excerptWidth, with "…" when there is more.
func excerpt(text string) string {
	var out []string
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if len(out) == 0 && strings.TrimSpace(l) == "" {
			continue
		}
		if len(out) == excerptLines {
			if i < len(lines) {
				out = append(out, "    …")
			}
			break
		}
		out = append(out, "    "+clip(strings.TrimRight(l, " \t\r"), excerptWidth))
	}
	return strings.Join(out, "\n")
}
