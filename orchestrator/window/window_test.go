package window

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/prompts"
)

// TestPromptBeforeSkipsLathesNotes: the request a compaction keeps is the
// user's, not a note lathe added in the user's place (a nudge, a mode
// change).
func TestPromptBeforeSkipsLathesNotes(t *testing.T) {
	msgs := []provider.Message{{Role: "system"}, {Role: "user", Content: "rename Foo"},
		{Role: "assistant"}, {Role: "user", Content: prompts.StartTaskNote("rename Foo to Bar")},
		{Role: "assistant"}, {Role: "user", Content: prompts.Nudge()}, {Role: "assistant"}}
	if got := (&Window{}).promptBefore(msgs, len(msgs)-1); got != "rename Foo" {
		t.Errorf("promptBefore = %q, want the user's prompt", got)
	}
	w := Window{NumCtx: 4096, Compaction: &session.Compaction{Seq: len(msgs) - 2, Summary: "sum"}}
	view := w.View(msgs)
	if len(view) != 3 || view[1].Content != prompts.SummaryHeader+"\nsum\n\n"+prompts.CurrentRequest+"\nrename Foo" {
		t.Errorf("view after a compaction mid-run = %+v", view)
	}
}

// TestDropChangesNoRequest: a window that dropped the messages before its
// compaction point gives the same view, estimates, cut points and
// transcript as one that holds them all, a compaction in the middle of a
// run included (the view keeps the prompt the dropped messages held), and
// so does the next compaction.
func TestDropChangesNoRequest(t *testing.T) {
	sys := provider.Message{Role: "system", Content: "sys"}
	round := func(prompt string, calls int) []provider.Message {
		out := []provider.Message{{Role: "user", Content: prompt}}
		for i := range calls {
			out = append(out, provider.Message{Role: "assistant", Content: strings.Repeat("a", 300), ToolCalls: []provider.ToolCall{{ID: "c", Name: "read"}}},
				provider.Message{Role: "tool", Content: strings.Repeat("r", 400+i)})
			if i == 1 {
				out = append(out, provider.Message{Role: "user", Content: prompts.Nudge()})
			}
		}
		return append(out, provider.Message{Role: "assistant", Content: "done " + prompt})
	}
	hist := append(append(round("first", 3), round("second", 6)...), round("third", 2)...)
	for _, c := range []struct {
		name string
		cut  int // the compaction's seq
	}{{"at a prompt", 8}, {"mid-run", 14}, {"after a note", 13}, {"everything", len(hist)}} {
		t.Run(c.name, func(t *testing.T) {
			msgs := append([]provider.Message{sys}, hist...)
			whole := Window{NumCtx: 4096, Compaction: &session.Compaction{Seq: c.cut, Summary: "sum"}}
			if c.cut < len(hist)-2 { // a count after the compaction: it forgets those before
				whole.Counted(provider.Metrics{PromptTokens: 2000, CompletionTokens: 20}, msgs[:len(msgs)-2], len(msgs)-2)
			}
			dropped := whole
			held := dropped.Drop(msgs, c.cut)
			if dropped.Base != c.cut || len(held) != len(msgs)-c.cut || &held[0] == &msgs[0] {
				t.Fatalf("Drop: base %d, %d messages held, want %d from seq %d in an array of their own", dropped.Base, len(held), len(msgs)-c.cut, c.cut)
			}
			same := func(what string, a, b any) {
				t.Helper()
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%s: %+v, want %+v", what, b, a)
				}
			}
			same("View", whole.View(msgs), dropped.View(held))
			same("Next", whole.Next(msgs), dropped.Next(held))
			same("Transcript", whole.Transcript(msgs, 4000), dropped.Transcript(held, 4000))
			for _, budget := range []int{0, 300, 100000} {
				a, aok := whole.CutPoint(msgs, budget)
				b, bok := dropped.CutPoint(held, budget)
				same(fmt.Sprint("CutPoint ", budget), []any{a, aok}, []any{b, bok})
			}
			a, aok := whole.CutAll(msgs)
			b, bok := dropped.CutAll(held)
			same("CutAll", []any{a, aok}, []any{b, bok})
			// The next compaction, at the last reply, with both.
			next := len(hist) - 1
			if next <= c.cut {
				return
			}
			whole.Compaction = &session.Compaction{Seq: next, Summary: "sum2"}
			dropped.Compaction = whole.Compaction
			same("View after the next compaction", whole.View(msgs), dropped.View(held))
			held = dropped.Drop(held, next)
			same("View after the next drop", whole.View(msgs), dropped.View(held))
		})
	}
}

// TestNextCountsFromTheServer: once the server has counted a reply, the
// next request is that count plus an estimate of what was appended.
func TestNextCountsFromTheServer(t *testing.T) {
	msgs := []provider.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "hi"}}
	w := Window{NumCtx: 4096, Specs: 400}
	if got, want := w.Next(msgs), w.Estimate(msgs)+100; got != want {
		t.Errorf("before any count: %d, want the estimate %d", got, want)
	}
	w.Counted(provider.Metrics{PromptTokens: 1000, CompletionTokens: 20}, msgs, len(msgs))
	msgs = append(msgs, provider.Message{Role: "tool", Content: "0123456789abcdef"})
	if got, want := w.Next(msgs), 1020+w.Estimate(msgs[2:]); got != want {
		t.Errorf("after a count: %d, want %d", got, want)
	}
	w.Forget()
	if got := w.Used(); got != 0 {
		t.Errorf("Used after Forget = %d", got)
	}
}

// TestDensityFromTheServer: the server's count of a request sets the bytes
// a token estimates use, so that dense text (listings, numbers) is not
// under-counted; a small request does not set it.
func TestDensityFromTheServer(t *testing.T) {
	dense := strings.Repeat("0123456789 ", 400) // 4,400 bytes
	view := []provider.Message{{Role: "system", Content: strings.Repeat("s", 600)}, {Role: "user", Content: dense}}
	w := Window{NumCtx: 8192, Specs: 1000, Shares: config.Context{ToolResult: 0.25}}
	if got := w.BytesPerToken(); got != 4 {
		t.Fatalf("density before any count: %v", got)
	}
	w.Counted(provider.Metrics{PromptTokens: 10}, view[:1], 1)
	if got := w.BytesPerToken(); got != 4 {
		t.Errorf("a 600-byte request set the density: %v", got)
	}
	// 6,000 bytes counted as 3,016 tokens, 16 of them framing: 2 bytes a token.
	w.Counted(provider.Metrics{PromptTokens: 3016, CompletionTokens: 4}, view, 3)
	if got := w.BytesPerToken(); got != 2 {
		t.Fatalf("density = %v, want 2", got)
	}
	more := append(view, provider.Message{Role: "assistant"}, provider.Message{Role: "tool", Content: dense})
	if got, want := w.Next(more), 3020+8+2200; got != want {
		t.Errorf("Next = %d, want %d (4,400 bytes at 2 a token)", got, want)
	}
	w.Forget()
	if got := w.BytesPerToken(); got != 2 {
		t.Errorf("Forget dropped the density: %v", got)
	}
	if got, want := len(w.CutResult(strings.Repeat("x", 10000))), 4096; got < want || got > want+200 {
		t.Errorf("a tool result is cut to %d bytes, want its quarter of the window at 2 bytes a token, %d", got, want)
	}
	w.Counted(provider.Metrics{PromptTokens: 100000}, view, 3)
	if got := w.BytesPerToken(); got != 1 {
		t.Errorf("density below 1 byte a token: %v", got)
	}
}

// TestFullLeavesRoomToSummarize: the window is full once the next request
// and a summary request's room would not fit, before compact_at.
func TestFullLeavesRoomToSummarize(t *testing.T) {
	w := Window{NumCtx: 4000, Shares: config.Context{CompactAt: 0.8, KeepRecent: 0.35, ToolResult: 0.25}}
	msgs := []provider.Message{{Role: "system"}, {Role: "user"}}
	w.Counted(provider.Metrics{PromptTokens: 3000}, msgs, 2)
	if w.Full(msgs, 500) {
		t.Error("3,000 of 4,000 tokens, 500 of room: full")
	}
	if !w.Full(msgs, 1001) {
		t.Error("3,000 of 4,000 tokens, 1,001 of room: not full")
	}
	w.Counted(provider.Metrics{PromptTokens: 3201}, msgs, 2)
	if !w.Full(msgs, 0) {
		t.Error("past compact_at: not full")
	}
}

// TestKeepRecentIsAShareOfTheFreeWindow: what is kept after a summary is
// a share of what the system prompt and the tool schemas leave.
func TestKeepRecentIsAShareOfTheFreeWindow(t *testing.T) {
	w := Window{NumCtx: 4096, Shares: config.Context{KeepRecent: 0.5}, Specs: 4 * 1000}
	msgs := []provider.Message{{Role: "system", Content: strings.Repeat("s", 4*1088)}}
	if got, want := w.KeepRecent(msgs, 1), 1000; got != want {
		t.Errorf("KeepRecent = %d, want half of 4,096 - 1,096 - 1,000", got)
	}
}

// TestTranscriptFitsItsRoom: the transcript of a summary request of its
// own fits the room it is given at the density measured.
func TestTranscriptFitsItsRoom(t *testing.T) {
	w := Window{NumCtx: 4096}
	msgs := []provider.Message{{Role: "system"}}
	for range 50 {
		msgs = append(msgs, provider.Message{Role: "tool", Content: strings.Repeat("9", 500)})
	}
	view := msgs[:2]
	w.Counted(provider.Metrics{PromptTokens: 3*8 + 2500/2}, append(view, provider.Message{Role: "user", Content: strings.Repeat("x", 2000)}), 2)
	if got := w.BytesPerToken(); got != 2 {
		t.Fatalf("density %v", got)
	}
	if got, most := len(w.Transcript(msgs, 3000)), 3000*2*9/10+100; got > most {
		t.Errorf("transcript of %d bytes for 3,000 tokens at 2 bytes a token, want at most %d", got, most)
	}
}
