// Package window keeps a conversation inside the model's context window:
// it counts the tokens the next request will take, decides when older turns
// must be summarized and where to cut them, builds the view of the
// conversation that requests send, and caps tool results to their share.
package window

import (
	"fmt"
	"math"
	"strings"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
)

// Window is the context window of one conversation. The zero value is not
// usable: set NumCtx and Shares.
//
// The messages its methods take are the conversation's system prompt,
// then its history from seq Base on: msgs[1] is message Base. The
// messages before it are not held (a store keeps them; see Drop).
//
// Token counts are the server's where it gave them: the last request's
// prompt and reply. What was appended since is estimated from its bytes,
// at the density the server's counts show (bytes per token, measured on
// each request counted): 4 bytes a token holds for prose and code in the
// usual tokenizers, but file listings, logs and numbers come to 2 or less.
type Window struct {
	// NumCtx is the window's size in tokens.
	NumCtx int
	// Shares are how much of the window the parts may take.
	Shares config.Context
	// Specs is how many bytes the tool schemas add to every request, and
	// SpecsShape how many tokens their shape makes (see ShapeTokens).
	Specs, SpecsShape int
	// Compaction is the latest summary: requests send it in place of the
	// messages before its Seq. Nil before the first compaction.
	Compaction *session.Compaction
	// Base is the seq of the first message held, at most the compaction's
	// Seq; 0 when the whole history is.
	Base int
	// Asked is the user's last prompt before Base, notes left out, which
	// a request may still send (see View); "" when there is none.
	Asked string

	used   int     // tokens the server counted for the last reply, prompt and output
	usedAt int     // the length of the history, system prompt included, when used was counted; 0 when nothing was
	ratio  float64 // bytes a token, from the server's counts; 0 until it counted enough
	shape  float64 // the server's tokens for each shape token; 0 until it counted enough
	shaped shaped  // the shape of the last view counted, to count only what was appended since
}

// shaped is the shape tokens of the first n messages of a view, the
// first and the last of them kept to tell the same view grown.
type shaped struct {
	n, tokens   int
	first, last provider.Message
}

const (
	// defaultRatio is the density assumed before the server counted
	// anything.
	defaultRatio = 4.0
	// frame is the tokens a message takes besides its text: the role and
	// the markers a chat template puts around it.
	frame = 8
	// calibrateMin is the fewest bytes a request must have for its count
	// to set the density: below that the framing guess weighs too much.
	calibrateMin = 2048
)

// BytesPerToken is the density estimates use: measured from the server's
// counts, or 4 until it counted a request.
func (w *Window) BytesPerToken() float64 {
	if w.ratio > 0 {
		return w.ratio
	}
	return defaultRatio
}

// tokens estimates the tokens of n bytes of text.
func (w *Window) tokens(n int) int {
	return int(math.Ceil(float64(n) / w.BytesPerToken()))
}

// Bytes is how many bytes of text fit in n tokens.
func (w *Window) Bytes(n int) int { return int(float64(n) * w.BytesPerToken()) }

// Estimate is a token count of messages at the window's density, with a
// few tokens of framing each.
func (w *Window) Estimate(msgs []provider.Message) int {
	b, frames := size(msgs)
	return frame*frames + w.tokens(b) + imageTokens(msgs)
}

// imageTokens estimates the tokens of the images in msgs, which no
// density of text tells.
func imageTokens(msgs []provider.Message) int {
	n := 0
	for _, m := range msgs {
		for _, img := range m.Images {
			n += img.Tokens()
		}
	}
	return n
}

// size is the bytes of text in msgs and how many framed parts (messages
// and tool calls) hold them.
func size(msgs []provider.Message) (bytes, frames int) {
	for _, m := range msgs {
		bytes += len(m.Content) + len(m.Thinking)
		frames++
		for _, c := range m.ToolCalls {
			bytes += len(c.Name) + len(c.Arguments)
			frames++
		}
	}
	return bytes, frames
}

// Counted takes the server's count for the request that sent view (its
// prompt, cached tokens included) and the reply to it (its output); msgs
// is the length of the history with the reply, the system prompt and the
// messages before Base included. The count also sets the density
// estimates use.
func (w *Window) Counted(m provider.Metrics, view []provider.Message, msgs int) {
	if m.PromptTokens <= 0 {
		return
	}
	w.used, w.usedAt = m.PromptTokens+m.CompletionTokens, msgs
	w.calibrate(view, m.PromptTokens)
}

// Refused takes the server's count of a request it refused as too long
// for its window (tokens, for the request that sent view): nothing was
// used, but the count sets the density, which was too high if the
// estimate let the request go.
func (w *Window) Refused(view []provider.Message, tokens int) { w.calibrate(view, tokens) }

// calibrate sets the density from the server's count of the request that
// sent view.
func (w *Window) calibrate(view []provider.Message, tokens int) {
	b, frames := size(view)
	b += w.Specs
	if t := tokens - frame*frames - imageTokens(view); b >= calibrateMin && t > 0 {
		w.ratio = min(8, max(1, float64(b)/float64(t)))
		if shape := w.shapeOfView(view) + w.SpecsShape; shape > 0 {
			w.shape = min(3, max(0.3, float64(t)/float64(shape)))
		}
	}
}

// shapeOfView is the shape tokens of the text of view: of what it added
// to the last view counted, when it starts with it (requests are
// append-only), else of it all.
func (w *Window) shapeOfView(view []provider.Message) int {
	m := w.shaped
	if m.n == 0 || len(view) < m.n || !same(view[0], m.first) || !same(view[m.n-1], m.last) {
		m = shaped{}
	}
	m.tokens += shapeOf(view[m.n:])
	if len(view) > 0 {
		m.n, m.first, m.last = len(view), view[0], view[len(view)-1]
	}
	w.shaped = m
	return m.tokens
}

// same reports whether two messages hold the same text (the same memory,
// from one request to the next, which compares at once).
func same(a, b provider.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Thinking == b.Thinking && len(a.ToolCalls) == len(b.ToolCalls)
}

// shapeOf is the shape tokens of the text of msgs.
func shapeOf(msgs []provider.Message) int {
	n := 0
	for _, m := range msgs {
		n += ShapeTokens(m.Content) + ShapeTokens(m.Thinking)
		for _, c := range m.ToolCalls {
			n += ShapeTokens(c.Name) + ShapeTokens(string(c.Arguments))
		}
	}
	return n
}

// Fixed is what every request takes whatever the conversation: the
// system prompt (msgs[0]) and the tool schemas.
func (w *Window) Fixed(msgs []provider.Message) int {
	return w.Estimate(msgs[:1]) + w.tokens(w.Specs)
}

// Forget drops the last count: the prompt changed in a way appending does
// not (a new system prompt, a compaction). The density stays.
func (w *Window) Forget() { w.used, w.usedAt, w.shaped = 0, 0, shaped{} }

// Used is the last count, for people; 0 when nothing was counted since the
// prompt last changed.
func (w *Window) Used() int { return w.used }

// Next is how many tokens the next request takes: what the server counted
// for the last reply, plus an estimate of what was appended since; an
// estimate of it all when nothing was counted yet.
func (w *Window) Next(msgs []provider.Message) int {
	at := w.usedAt - w.Base
	if w.usedAt == 0 || at < 1 || at > len(msgs) {
		return w.Estimate(w.View(msgs)) + w.tokens(w.Specs)
	}
	return w.used + w.Estimate(msgs[at:])
}

// Full reports whether the next request would fill more of the window than
// the config allows before compacting, or leave less than room tokens, what
// a summary request adds to the conversation (its instruction and reply):
// when it is not full, the conversation can still be summarized in place.
func (w *Window) Full(msgs []provider.Message, room int) bool {
	next := w.Next(msgs)
	return next > int(w.Shares.CompactAt*float64(w.NumCtx)) || next+room > w.NumCtx
}

// KeepRecent is how many tokens the recent messages kept after a summary
// may take, divided by div: a share of what the system prompt and the
// tool schemas leave of the window.
func (w *Window) KeepRecent(msgs []provider.Message, div float64) int {
	free := w.NumCtx - w.Estimate(msgs[:1]) - w.tokens(w.Specs)
	return int(w.Shares.KeepRecent * float64(max(0, free)) / div)
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
	rest := msgs[min(1+c.Seq-w.Base, len(msgs)):]
	first := provider.Message{Role: "user", Content: prompts.SummaryHeader + "\n" + c.Summary}
	switch {
	case len(rest) > 0 && rest[0].Role == "user":
		first.Content += "\n\n" + rest[0].Content
		first.Images = rest[0].Images
		rest = rest[1:]
	case w.promptBefore(msgs, c.Seq) != "":
		first.Content += "\n\n" + prompts.CurrentRequest + "\n" + w.promptBefore(msgs, c.Seq)
	}
	out := make([]provider.Message, 0, 2+len(rest))
	return append(append(out, msgs[0], first), rest...)
}

// promptBefore is the user's last prompt before seq: the request a
// compaction in the middle of a run must keep word for word.
func (w *Window) promptBefore(msgs []provider.Message, seq int) string {
	if p := lastPrompt(msgs[1:min(1+seq-w.Base, len(msgs))]); p != "" {
		return p
	}
	return w.Asked
}

// lastPrompt is the user's last prompt in msgs, notes left out; "" when
// they hold none.
func lastPrompt(msgs []provider.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == "user" && !prompts.IsNote(m.Content) {
			return m.Content
		}
	}
	return ""
}

// Drop lets go of the messages before seq to, which requests no longer
// send (to is at most the compaction point): it returns msgs without
// them, in an array of their own, so that theirs can be collected, and
// moves Base to to, keeping the last prompt of them in Asked.
func (w *Window) Drop(msgs []provider.Message, to int) []provider.Message {
	to = min(to, w.CompactedTo(), w.Base+len(msgs)-1)
	if to <= w.Base {
		return msgs
	}
	gone := msgs[1 : 1+to-w.Base]
	if p := lastPrompt(gone); p != "" {
		w.Asked = p
	}
	kept := msgs[1+len(gone):]
	out := make([]provider.Message, 0, 1+len(kept)+len(kept)/4)
	w.Base = to
	return append(append(out, msgs[0]), kept...)
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
	from := w.CompactedTo() - w.Base // as an index of hist
	cut, total := -1, 0
	for i := len(hist) - 1; i > from; i-- {
		total += w.Estimate(hist[i : i+1])
		if hist[i].Role == "tool" {
			continue
		}
		if total > budget && cut >= 0 {
			break
		}
		cut = i
	}
	if cut < 0 {
		return -1, false
	}
	return w.Base + cut, true
}

// CutAll is the compaction point that summarizes the whole conversation,
// the last exchange included, the request that follows keeping only the
// user's prompt; false when nothing after the current point would be
// summarized but that prompt.
func (w *Window) CutAll(msgs []provider.Message) (int, bool) {
	cut := w.Base + len(msgs) - 1
	from := w.CompactedTo()
	if cut <= from || cut == from+1 && msgs[len(msgs)-1].Role == "user" {
		return 0, false
	}
	return cut, true
}

// Transcript writes the conversation as text for a summary request of its
// own, cut to fit in room tokens (at nine tenths of the density measured,
// to be safe: a summary that overflows too leaves nothing to fall back on).
func (w *Window) Transcript(msgs []provider.Message, room int) string {
	var b strings.Builder
	if c := w.Compaction; c != nil {
		b.WriteString(prompts.SummarySoFar + "\n" + c.Summary + "\n\n")
	}
	for _, m := range msgs[1+w.CompactedTo()-w.Base:] {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
		for _, img := range m.Images {
			fmt.Fprintf(&b, "[image: %s]\n", img.Name)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "%s called %s %s\n", m.Role, c.Name, c.Args())
		}
	}
	return tools.Cap(b.String(), max(256, w.Bytes(room)*9/10))
}

// CutResult cuts a tool result that would take more than its share of the
// window, with a note on how to read the rest. Its tokens are reckoned
// from its own shape (see ShapeTokens), scaled as the server's counts
// show, where that makes it denser than the density measured over whole
// requests: a listing of numbered files takes twice the tokens a byte of
// the prompt around it does.
func (w *Window) CutResult(content string) string {
	density := w.BytesPerToken()
	if shape := ShapeTokens(content); shape > 0 {
		density = min(density, float64(len(content))/(float64(shape)*w.shapeFactor()))
	}
	limit := int(w.Shares.ToolResult * float64(w.NumCtx) * density)
	if len(content) <= limit {
		return content
	}
	return tools.Cap(content, limit) + prompts.ResultCut(len(content))
}

// shapeFactor is the server's tokens for each shape token, as measured; 1
// until the server counted enough.
func (w *Window) shapeFactor() float64 {
	if w.shape > 0 {
		return w.shape
	}
	return 1
}
