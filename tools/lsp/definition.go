package lsp

import (
	"context"
	"fmt"

	"lathe/tools"
)

// definition is a call of the definition tool: where the name at a spot
// is defined, by textDocument/definition; or, for a symbol's name alone,
// where the symbols named so are, by workspace/symbol.
func (m *Manager) definition(ctx context.Context, t target, caller tools.Caller) tools.Result {
	if t.line == 0 {
		return m.definedSymbols(ctx, t, caller)
	}
	const method = "textDocument/definition"
	q, res := m.spotFor(ctx, t, method, caller)
	if res != nil {
		return *res
	}
	raw, res := m.ask(ctx, q, method)
	if res != nil {
		return *res
	}
	ps := places(m.opts.Dir, locations(raw))
	if len(ps) == 0 {
		return tools.Result{Content: withNote(fmt.Sprintf("no definition of %s found (%s)", q.sp.word, q.sp), q.note), Summary: "none"}
	}
	head := fmt.Sprintf("definition of %s (%s):\n", q.sp.word, q.sp)
	return tools.Result{Content: withNote(head+m.texts().list(ps), q.note), Summary: summary(len(ps), "location")}
}

// definedSymbols is the definition tool for a symbol's name alone.
func (m *Manager) definedSymbols(ctx context.Context, t target, caller tools.Caller) tools.Result {
	found, res := m.lookup(ctx, t.symbol, t.path, caller)
	if res != nil {
		return *res
	}
	tx := m.texts()
	head := "definition of " + t.symbol + ":"
	if len(found) > 1 {
		head = fmt.Sprintf("%d definitions of %s:", len(found), t.symbol)
	}
	text := head
	for _, x := range found[:min(len(found), navLines)] {
		tx.aim(&x, t.symbol)
		text += "\n" + tx.describe(x)
	}
	if len(found) > navLines {
		text += fmt.Sprintf("\n(%d more not shown)", len(found)-navLines)
	}
	return tools.Result{Content: text, Summary: summary(len(found), "location")}
}
