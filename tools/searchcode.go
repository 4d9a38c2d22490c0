package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"lathe/prompts"
	"lathe/prompts/human"
	"lathe/tools/codeindex"
)

const (
	maxQuery        = 1000 // bytes of a query
	searchCodeLimit = 8    // results
	excerptLines    = 4    // lines of each shown
	excerptWidth    = 120  // bytes of each line shown
)

func searchCodeSpec() spec {
	return spec{
		name: "search_code",
		desc: "Find code by what it does, described in words; gives file:line ranges.",
		params: []param{
			{name: "query", typ: typeString, required: true},
		},
	}
}

type searchCodeArgs struct {
	Query string `json:"query"`
}

// searchCode searches the project's semantic code index.
type searchCode struct {
	base
	ws *Workspace
	m  Memory
}

func newSearchCode(ws *Workspace, m Memory) *searchCode {
	return &searchCode{base: newBase(searchCodeSpec(), memoryOutput), ws: ws, m: m}
}

func (*searchCode) Kind() Kind { return KindRead }

// Available implements Optional.
func (t *searchCode) Available(ctx context.Context) bool {
	return t.m.CodeAvailable == nil || t.m.CodeAvailable(ctx)
}

func (t *searchCode) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a searchCodeArgs) (Call, error) {
		q := strings.TrimSpace(a.Query)
		switch {
		case q == "":
			return nil, fmt.Errorf("argument %q is empty: say what the code does", "query")
		case len(q) > maxQuery:
			return nil, fmt.Errorf("argument %q is too long: describe the code in a sentence or two", "query")
		}
		return RunFunc(q, func(ctx context.Context, _ Caller) (Result, error) { return t.run(ctx, q) }), nil
	})
}

func (t *searchCode) run(ctx context.Context, q string) (Result, error) {
	status := ""
	if t.m.CodeStatus != nil {
		status = t.m.CodeStatus()
	}
	res, err := t.m.Code.Search(ctx, codeindex.Query{Dir: t.m.Dir, Root: t.ws.Root(), Text: q, Limit: searchCodeLimit})
	switch {
	case errors.Is(err, codeindex.ErrNoIndex):
		return Result{Content: prompts.CodeNoIndex(status), IsError: true, Summary: "no index yet"}, nil
	case err != nil:
		return Errorf("failed", err.Error()), nil // the model server, most likely: the model can go on with grep
	case len(res) == 0:
		return Result{Content: prompts.CodeNone(status), Summary: "nothing found"}, nil
	}
	hits := make([]prompts.CodeHit, len(res))
	for i, r := range res {
		hits[i] = prompts.CodeHit{Where: fmt.Sprintf("%s:%d-%d", r.Path, r.Start, r.End), Symbol: r.Symbol,
			Changed: r.Changed, Excerpt: excerpt(r.Text)}
	}
	return Result{Content: prompts.CodeFound(hits, status), Summary: human.Plural(len(res), "chunk")}, nil
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
