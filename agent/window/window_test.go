package window

import (
	"testing"

	"lathe/prompts"
	"lathe/provider"
	"lathe/session"
)

// TestPromptBeforeSkipsLathesNotes: the request a compaction keeps is the
// user's, not a note lathe added in the user's place (a nudge, a mode
// change).
func TestPromptBeforeSkipsLathesNotes(t *testing.T) {
	msgs := []provider.Message{{Role: "system"}, {Role: "user", Content: "rename Foo"},
		{Role: "assistant"}, {Role: "user", Content: prompts.StartTaskNote("rename Foo to Bar")},
		{Role: "assistant"}, {Role: "user", Content: prompts.Nudge()}, {Role: "assistant"}}
	if got := promptBefore(msgs, len(msgs)-1); got != "rename Foo" {
		t.Errorf("promptBefore = %q, want the user's prompt", got)
	}
	w := Window{NumCtx: 4096, Compaction: &session.Compaction{Seq: len(msgs) - 2, Summary: "sum"}}
	view := w.View(msgs)
	if len(view) != 3 || view[1].Content != prompts.SummaryHeader+"\nsum\n\n"+prompts.CurrentRequest+"\nrename Foo" {
		t.Errorf("view after a compaction mid-run = %+v", view)
	}
}

// TestNextCountsFromTheServer: once the server has counted a reply, the
// next request is that count plus an estimate of what was appended.
func TestNextCountsFromTheServer(t *testing.T) {
	msgs := []provider.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "hi"}}
	w := Window{NumCtx: 4096, Overhead: 100}
	if got, want := w.Next(msgs), Estimate(msgs)+100; got != want {
		t.Errorf("before any count: %d, want the estimate %d", got, want)
	}
	w.Counted(provider.Metrics{PromptTokens: 1000, CompletionTokens: 20}, len(msgs))
	msgs = append(msgs, provider.Message{Role: "tool", Content: "0123456789abcdef"})
	if got, want := w.Next(msgs), 1020+Estimate(msgs[2:]); got != want {
		t.Errorf("after a count: %d, want %d", got, want)
	}
	w.Forget()
	if got := w.Used(); got != 0 {
		t.Errorf("Used after Forget = %d", got)
	}
}
