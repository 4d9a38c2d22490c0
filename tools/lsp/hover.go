package lsp

import (
	"context"
	"fmt"
	"strings"

	"lathe/prompts/human"
	"lathe/tools"
)

// hover is a call of the hover tool: what the server says of the name at
// a spot, or of the symbol named (its type, its documentation), by
// textDocument/hover.
func (m *Manager) hover(ctx context.Context, t target, caller tools.Caller) tools.Result {
	const method = "textDocument/hover"
	q, res := m.queryFor(ctx, t, method, caller)
	if res != nil {
		return *res
	}
	raw, res := m.ask(ctx, q, method)
	if res != nil {
		return *res
	}
	text := hoverText(raw)
	if text == "" {
		return tools.Result{Content: withNote(fmt.Sprintf("nothing known of %s (%s)", q.sp.word, q.sp), q.note), Summary: "none"}
	}
	if len(text) > maxHover {
		cut := clip(text, maxHover)
		text = cut + fmt.Sprintf("\n(%d more bytes not shown)", len(text)-len(cut)+len("…"))
	}
	head := fmt.Sprintf("%s (%s):\n", q.sp.word, q.sp)
	return tools.Result{Content: withNote(head+text, q.note), Summary: human.Plural(strings.Count(text, "\n")+1, "line")}
}
