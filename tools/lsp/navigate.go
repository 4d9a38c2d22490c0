package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"

	"lathe/prompts/human"
	"lathe/tools"
)

// NavigationTools returns the navigation tools: definition, references
// and hover, which ask the language servers about a name, given by where
// it is (path, line, column) or by itself (symbol). Each is offered
// (tools.Optional) when a server can start for a language the workspace
// holds, as the diagnostics tool is.
func (m *Manager) NavigationTools(ws *tools.Workspace) []tools.Tool {
	return []tools.Tool{
		m.navTool(ws, "definition", "Where a name is defined, by the language server.", m.definition),
		m.navTool(ws, "references", "Where a name is used, by the language server.", m.references),
		m.navTool(ws, "hover", "A name's type and documentation, by the language server.", m.hover),
	}
}

// navParams are the navigation tools' arguments.
var navParams = []tools.Param{
	{Name: "path", Type: "string", Description: "File path"},
	{Name: "line", Type: "integer", Description: "Line, from 1"},
	{Name: "column", Type: "integer", Description: "Column, from 1"},
	{Name: "symbol", Type: "string", Description: "The name, instead of column; without path and line, looked up in the workspace"},
}

type navArgs struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Symbol string `json:"symbol"`
}

// target is what a navigation call asks about: the name at line and
// column of the file at path, or the symbol named so (on that line, or
// in that file, when they are given).
type target struct {
	path         string
	line, column int
	symbol       string
}

func (t target) String() string {
	switch {
	case t.line > 0 && t.column > 0 && t.symbol == "":
		return fmt.Sprintf("%s:%d:%d", t.path, t.line, t.column)
	case t.line > 0:
		return fmt.Sprintf("%s:%d %s", t.path, t.line, t.symbol)
	case t.path != "":
		return t.path + " " + t.symbol
	}
	return t.symbol
}

// targetOf checks a navigation call's arguments.
func targetOf(ws *tools.Workspace, a navArgs) (target, error) {
	t := target{line: a.Line, column: a.Column, symbol: strings.TrimSpace(a.Symbol)}
	if strings.TrimSpace(a.Path) != "" {
		rel, err := ws.Rel(a.Path)
		if err != nil {
			return t, err
		}
		t.path = rel
	}
	switch {
	case t.line < 0 || t.column < 0:
		return t, errors.New("line and column count from 1")
	case t.symbol == "" && (t.path == "" || t.line == 0 || t.column == 0):
		return t, errors.New("give path, line and column of the name, or the name as symbol")
	case t.line > 0 && t.path == "":
		return t, errors.New("line needs path: the file it is a line of")
	case t.column > 0 && t.line == 0:
		return t, errors.New("column needs line")
	}
	return t, nil
}

// navTool is a navigation tool; run answers a call in time.
func (m *Manager) navTool(ws *tools.Workspace, name, desc string, run func(context.Context, target, tools.Caller) tools.Result) tools.Tool {
	t := tools.Func(name, desc+" Give path, line and column, or symbol.", navParams, tools.KindRead,
		func(a navArgs) (tools.Call, error) {
			tg, err := targetOf(ws, a)
			if err != nil {
				return nil, err
			}
			return tools.RunFunc(tg.String(), func(ctx context.Context, caller tools.Caller) (tools.Result, error) {
				wait, cancel := context.WithTimeout(ctx, m.opts.ToolWait)
				defer cancel()
				res := run(wait, tg, caller)
				if err := ctx.Err(); err != nil {
					return tools.Result{}, err
				}
				return res, nil
			}), nil
		})
	return offered{Tool: t, m: m}
}

// ready is e's client, started and initialized, when it answers method.
func (m *Manager) ready(ctx context.Context, e *entry, method string) (*client, *tools.Result) {
	c := m.client(e)
	if c == nil {
		r := tools.Errorf("no server", fmt.Sprintf("the language server %s does not run", e.srv.Name))
		return nil, &r
	}
	if !c.waitReady(ctx) {
		r := m.failure(e, cmpErr(c.failed(), ctx.Err()))
		return nil, &r
	}
	if !c.supports(method) {
		r := tools.Errorf("not supported", fmt.Sprintf("the language server %s does not answer %s", e.srv.Name, method))
		return nil, &r
	}
	return c, nil
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return context.DeadlineExceeded
}

// failure is the result of a request of e that failed with err.
func (m *Manager) failure(e *entry, err error) tools.Result {
	var rpc *jsonrpc2.Error
	switch {
	case errors.As(err, &rpc):
		return tools.Errorf("server error", fmt.Sprintf("the language server %s answered: %s", e.srv.Name, clip(oneLine(rpc.Message), maxMessageText)))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return tools.Errorf("no answer", fmt.Sprintf("the language server %s did not answer in time", e.srv.Name))
	case errors.Is(err, errStopped):
		return tools.Errorf("stopped", fmt.Sprintf("the language server %s stopped before it answered", e.srv.Name))
	}
	return tools.Errorf("stopped", fmt.Sprintf("the language server %s failed: %s", e.srv.Name, clip(oneLine(err.Error()), maxMessageText)))
}

// query is a request to make: of c, the server e runs, at pos of the
// document u; sp is that spot for people.
type query struct {
	c   *client
	e   *entry
	u   string
	sp  spot
	pos protocol.Position
	// note says what the call should know of how the spot was found;
	// "" when nothing.
	note string
}

// queryFor is the request a call makes of method: at its spot in a file
// (t.line given), or where the symbol it names is.
func (m *Manager) queryFor(ctx context.Context, t target, method string, caller tools.Caller) (query, *tools.Result) {
	if t.line > 0 {
		return m.spotFor(ctx, t, method, caller)
	}
	found, res := m.lookup(ctx, t.symbol, t.path, caller)
	if res != nil {
		return query{}, res
	}
	x := found[0]
	if !x.c.supports(method) {
		r := tools.Errorf("not supported", fmt.Sprintf("the language server %s does not answer %s", x.e.srv.Name, method))
		return query{}, &r
	}
	tx := m.texts()
	tx.aim(&x, t.symbol)
	q := query{c: x.c, e: x.e, u: x.Location.URI, pos: protocol.Position{Line: uint32(x.at.line), Character: uint32(x.at.char)},
		sp: spot{path: x.at.path, line: x.at.line + 1, col: x.at.char + 1, word: t.symbol}, note: ambiguity(t.symbol, found, tx)}
	if x.at.inside {
		text := tx.of(x.at.path)
		q.sp.col = charColumn(text, x.at.line, x.at.char) + 1
		if res := m.hold(ctx, x.c, x.e, x.at.path, text); res != nil {
			return query{}, res
		}
	}
	return q, nil
}

// ambiguity says, when found holds more than one symbol, that the first
// is used, and where the others are.
func ambiguity(name string, found []match, tx *texts) string {
	if len(found) < 2 {
		return ""
	}
	var others []string
	for _, x := range found[1:min(len(found), 6)] {
		tx.aim(&x, name)
		others = append(others, strings.SplitN(tx.line(x.at), ": ", 2)[0])
	}
	more := ""
	if len(found) > 6 {
		more = fmt.Sprintf(" and %d more", len(found)-6)
	}
	return fmt.Sprintf("%d symbols are named %s: the first is used; the others: %s%s. Give path and line to choose.",
		len(found), name, strings.Join(others, ", "), more)
}

// spotFor is the request at the spot a call asks about in a file, made
// of the file's server, ready for method and holding the file as it is
// on disk.
func (m *Manager) spotFor(ctx context.Context, t target, method string, caller tools.Caller) (query, *tools.Result) {
	e := m.entryFor(t.path)
	if e == nil {
		r := tools.Errorf("no server", fmt.Sprintf("no language server serves %s", t.path))
		return query{}, &r
	}
	text, ok := m.readFile(t.path)
	if !ok {
		r := tools.Errorf("not read", fmt.Sprintf("%s is not a file a language server reads (missing, not a regular file, or over %d bytes)", t.path, maxFileBytes))
		return query{}, &r
	}
	var sp spot
	err := errors.New("")
	if t.symbol != "" {
		sp, err = spotOf(t.path, text, t.line, t.symbol)
	}
	if err != nil && t.column > 0 {
		sp, err = spotAt(t.path, text, t.line, t.column)
	}
	if err != nil {
		r := tools.Errorf("bad position", err.Error())
		return query{}, &r
	}
	caller.Report(waiting([]*entry{e}))
	c, res := m.ready(ctx, e, method)
	if res != nil {
		return query{}, res
	}
	if res := m.hold(ctx, c, e, t.path, text); res != nil {
		return query{}, res
	}
	q := query{c: c, e: e, u: string(uri(absPath(m.opts.Dir, t.path))), sp: sp, pos: sp.pos}
	if sp.moved != "" {
		q.note = sp.moved + ": the nearest name, " + sp.word + ", is used."
	}
	return q, nil
}

// hold makes sure c's copy of the file at path holds text.
func (m *Manager) hold(ctx context.Context, c *client, e *entry, path, text string) *tools.Result {
	if doc, open := c.state(path); open && doc.text == text {
		return nil
	}
	if _, ok := c.sync(ctx, path, text); !ok {
		err := c.failed()
		if err == nil && ctx.Err() == nil {
			r := tools.Errorf("too many files", fmt.Sprintf("the language server %s has %d files open already", e.srv.Name, maxOpen))
			return &r
		}
		r := m.failure(e, cmpErr(err, ctx.Err()))
		return &r
	}
	return nil
}

// ask makes q's request, method, and returns the raw answer.
func (m *Manager) ask(ctx context.Context, q query, method string) (json.RawMessage, *tools.Result) {
	params := map[string]any{"textDocument": map[string]string{"uri": q.u}, "position": q.pos}
	if method == "textDocument/references" {
		params["context"] = map[string]bool{"includeDeclaration": true}
	}
	var raw json.RawMessage
	if err := q.c.request(ctx, method, params, &raw); err != nil {
		r := m.failure(q.e, err)
		return nil, &r
	}
	return raw, nil
}

// withNote is text followed by note, when there is one.
func withNote(text, note string) string {
	if note == "" {
		return text
	}
	return text + "\n(" + note + ")"
}

// summary is what a navigation call found, as its result says it.
func summary(n int, what string) string {
	if n == 0 {
		return "none"
	}
	return human.Plural(n, what)
}
