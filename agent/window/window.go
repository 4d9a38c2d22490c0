// Package window keeps a conversation inside the model's context window:
// it counts the tokens the next request will take, decides when older turns
// must be summarized and where to cut them, builds the view of the
// conversation that requests send, and caps tool results to their share.
package window

import (
	"fmt"
	"strings"

	"lathe/config"
	"lathe/prompts"
	"lathe/provider"
	"lathe/session"
	"lathe/tools"
)

// Window is the context window of one conversation. The zero value is not
// usable: set NumCtx and Shares.
type Window struct {
	// NumCtx is the window's size in tokens.
	NumCtx int
	// Shares are how much of the window the parts may take.
	Shares config.Context
	// Overhead is what the tool schemas take of every request, in tokens.
	Overhead int
	// Compaction is the latest summary: requests send it in place of the
	// messages before its Seq. Nil before the first compaction.
	Compaction *session.Compaction

	used   int // tokens the server counted for the last reply, prompt and output
	usedAt int // len(messages) when used was counted; 0 when nothing was
}

// Estimate is a rough token count of messages: four bytes a token, and a
// few tokens of framing each.
func Estimate(msgs []provider.Message) int {
	n := 0
	for _, m := range msgs {
		n += 8 + (len(m.Content)+len(m.Thinking)+3)/4
		for _, c := range m.ToolCalls {
			n += 8 + (len(c.Name)+len(c.Arguments)+3)/4
		}
	}
	return n
}

// Counted takes the server's count after a reply to the conversation msgs
// (its prompt, cached tokens included, plus what it generated).
func (w *Window) Counted(m provider.Metrics, msgs int) {
	if m.PromptTokens > 0 {
		w.used, w.usedAt = m.PromptTokens+m.CompletionTokens, msgs
	}
}

// Forget drops the last count: the prompt changed in a way appending does
// not (a new system prompt, a compaction).
func (w *Window) Forget() { w.used, w.usedAt = 0, 0 }

// Used is the last count, for people; 0 when nothing was counted since the
// prompt last changed.
func (w *Window) Used() int { return w.used }

// Next is how many tokens the next request takes: what the server counted
// for the last reply, plus an estimate of what was appended since; an
// estimate of it all when nothing was counted yet.
func (w *Window) Next(msgs []provider.Message) int {
	if w.usedAt == 0 {
		return Estimate(w.View(msgs)) + w.Overhead
	}
	return w.used + Estimate(msgs[w.usedAt:])
}

// Full reports whether the next request would fill more of the window than
// the config allows before compacting.
func (w *Window) Full(msgs []provider.Message) bool {
	return w.Next(msgs) > int(w.Shares.CompactAt*float64(w.NumCtx))
}

// KeepRecent is how many tokens the recent messages kept after a summary
// may take, divided by div.
func (w *Window) KeepRecent(div float64) int {
	return int(w.Shares.KeepRecent * float64(w.NumCtx) / div)
}

// SummaryWords is how long a summary may be.
func (w *Window) SummaryWords() int { return max(150, min(600, w.NumCtx/40)) }

// View is the conversation as requests send it: the system prompt, then,
// once compacted, the summary of what came before the compaction point
// merged with the prompt that follows it, then the messages after it.
// Between compactions it only grows, so requests stay append-only.
func (w *Window) View(msgs []provider.Message) []provider.Message {
	c := w.Compaction
	if c == nil {
		return msgs
	}
	rest := msgs[1+c.Seq:]
	first := provider.Message{Role: "user", Content: prompts.SummaryHeader + "\n" + c.Summary}
	switch {
	case len(rest) > 0 && rest[0].Role == "user":
		first.Content += "\n\n" + rest[0].Content
		first.Images = rest[0].Images
		rest = rest[1:]
	case promptBefore(msgs, c.Seq) != "":
		first.Content += "\n\n" + prompts.CurrentRequest + "\n" + promptBefore(msgs, c.Seq)
	}
	out := make([]provider.Message, 0, 2+len(rest))
	return append(append(out, msgs[0], first), rest...)
}

// promptBefore is the user's last prompt before seq: the request a
// compaction in the middle of a run must keep word for word.
func promptBefore(msgs []provider.Message, seq int) string {
	for i := seq; i >= 1; i-- {
		if m := msgs[i]; m.Role == "user" && !prompts.IsNote(m.Content) {
			return m.Content
		}
	}
	return ""
}

// CompactedTo is the seq of the current compaction point; 0 for none.
func (w *Window) CompactedTo() int {
	if w.Compaction == nil {
		return 0
	}
	return w.Compaction.Seq
}

// CutPoint chooses the next compaction point: the earliest message after
// which the messages take at most budget tokens, where a round starts (a
// prompt or a reply, never between a reply and the results of its calls),
// and after the current point, so that it always moves forward. It reports
// false when there is nothing to summarize.
func (w *Window) CutPoint(msgs []provider.Message, budget int) (int, bool) {
	hist := msgs[1:]
	from := w.CompactedTo()
	cut, total := -1, 0
	for i := len(hist) - 1; i > from; i-- {
		total += Estimate(hist[i : i+1])
		if hist[i].Role == "tool" {
			continue
		}
		if total > budget && cut >= 0 {
			break
		}
		cut = i
	}
	return cut, cut > from
}

// Transcript writes the conversation as text for a summary request of its
// own, cut from the front to fit half the window.
func (w *Window) Transcript(msgs []provider.Message) string {
	var b strings.Builder
	if c := w.Compaction; c != nil {
		b.WriteString(prompts.SummarySoFar + "\n" + c.Summary + "\n\n")
	}
	for _, m := range msgs[1+w.CompactedTo():] {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "%s called %s %s\n", m.Role, c.Name, c.Args())
		}
	}
	return tools.Cap(b.String(), w.NumCtx*4/2)
}

// CutResult cuts a tool result that would take more than its share of the
// window, with a note on how to read the rest.
func (w *Window) CutResult(content string) string {
	limit := int(w.Shares.ToolResult*float64(w.NumCtx)) * 4
	if len(content) <= limit {
		return content
	}
	return tools.Cap(content, limit) + prompts.ResultCut(len(content))
}
