package lsp

import (
	"context"
	"fmt"

	"lathe/tools"
)

// references is a call of the references tool: where the name at a spot,
// or the symbol named, is used (its declaration included), by
// textDocument/references.
func (m *Manager) references(ctx context.Context, t target, caller tools.Caller) tools.Result {
	const method = "textDocument/references"
	q, res := m.queryFor(ctx, t, method, caller)
	if res != nil {
		return *res
	}
	raw, res := m.ask(ctx, q, method)
	if res != nil {
		return *res
	}
	ps := places(m.opts.Dir, locations(raw))
	if len(ps) == 0 {
		return tools.Result{Content: withNote(fmt.Sprintf("no references to %s found (%s)", q.sp.word, q.sp), q.note), Summary: "none"}
	}
	head := fmt.Sprintf("%s to %s (%s):\n", summary(len(ps), "reference"), q.sp.word, q.sp)
	return tools.Result{Content: withNote(head+m.texts().list(ps), q.note), Summary: summary(len(ps), "reference")}
}
