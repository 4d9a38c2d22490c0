package ollamatest

import "strings"

// maxRepeat is llm/server.go's loop guard: Completion ends a generation,
// without a done line or an error, when a token repeats more than 30 times
// in a row. 31 identical tokens go out; the stream ends before the 32nd.
const maxRepeat = 30

// repeatGuard follows llm/server.go's Completion: it compares each token
// the runner sends, with spaces trimmed, with the one before, starting from
// "" (so whitespace at the start already counts as repeats).
type repeatGuard struct {
	last     string
	repeats  int
	thinking bool // the last chunk was thinking
}

// stops reports whether the stream ends before m. A tool call or the end of
// thinking stands for tokens ("<tool_call>...", "</think>") that break a
// run.
func (g *repeatGuard) stops(m wireMessage) bool {
	var token string
	switch {
	case len(m.ToolCalls) > 0:
		g.last, g.repeats = "</tool_call>", 0
		return false
	case m.Thinking != "":
		token, g.thinking = strings.TrimSpace(m.Thinking), true
	default:
		if g.thinking {
			g.last, g.repeats, g.thinking = "</think>", 0, false
		}
		token = strings.TrimSpace(m.Content)
	}
	if token == g.last {
		g.repeats++
	} else {
		g.last, g.repeats = token, 0
	}
	return g.repeats > maxRepeat
}
