package textcall

import "strings"

const (
	toolCallOpen  = "<tool_call>"
	toolCallClose = "</tool_call>"
	thinkOpen     = "<think>"
	thinkClose    = "</think>"
)

// forms are the wrappers a body may hold around its calls, besides bare
// JSON and XML calls. Each wrapper allows fewer forms in its own body, so
// that nesting stays shallow.
type forms uint8

const (
	withTags   forms = 1 << iota // <tool_call> blocks, [TOOL_CALLS] and <|python_tag|>
	withFences                   // code fences
)

// toolCallAt reads the <tool_call> block that starts at s[i], whose body
// may hold the forms in inner. The block ends at its closing tag or, when
// that is missing, at the next <tool_call> or the end of s. end is past
// the block whether or not it holds calls, so that a refused block is
// skipped whole.
func toolCallAt(s string, i int, resolve resolveFunc, inner forms) (calls []Call, end int, ok bool) {
	from := i + len(toolCallOpen)
	bodyEnd := len(s)
	if n := strings.Index(s[from:], toolCallOpen); n >= 0 {
		bodyEnd = from + n
	}
	end = bodyEnd
	if n := strings.Index(s[from:bodyEnd], toolCallClose); n >= 0 {
		bodyEnd, end = from+n, from+n+len(toolCallClose)
	}
	calls, ok = onlyCalls(s[from:bodyEnd], resolve, inner)
	return calls, end, ok
}

// onlyCalls returns the calls in text, the body of a fence or a block,
// when it holds calls separated by whitespace and nothing else. Besides
// JSON and XML calls it may hold the forms in allow.
func onlyCalls(text string, resolve resolveFunc, allow forms) ([]Call, bool) {
	var calls []Call
	for i := skipSpace(text, 0); i < len(text); i = skipSpace(text, i) {
		found, end, ok := bodyCallAt(text, i, resolve, allow)
		if !ok {
			return nil, false
		}
		calls = append(calls, found...)
		i = end
	}
	return calls, len(calls) > 0
}

// bodyCallAt reads the calls of whichever form starts at text[i].
func bodyCallAt(text string, i int, resolve resolveFunc, allow forms) ([]Call, int, bool) {
	rest := text[i:]
	tags, fences := allow&withTags != 0, allow&withFences != 0
	switch {
	case tags && strings.HasPrefix(rest, mistralMarker):
		return mistralAt(text, i, resolve)
	case tags && strings.HasPrefix(rest, toolCallOpen):
		return toolCallAt(text, i, resolve, 0)
	case tags && strings.HasPrefix(rest, pythonTag):
		return markerAt(text, i, pythonTag, resolve)
	case fences && (rest[0] == '`' || rest[0] == '~'):
		f, ok := fenceAt(text, i)
		if !ok || !callLanguage(f.lang) {
			return nil, i, false
		}
		calls, ok := onlyCalls(f.body, resolve, 0)
		return calls, f.end, ok
	case rest[0] == '{' || rest[0] == '[':
		return jsonCallsAt(text, i, resolve)
	case strings.HasPrefix(rest, functionOpen):
		c, end, ok := functionAt(text, i, resolve)
		return []Call{c}, end, ok
	}
	return nil, i, false
}

// thinkEnd returns the index past the <think> block that starts at s[i],
// or len(s) when it is not closed: what a model writes while thinking is
// never a call.
func thinkEnd(s string, i int) int {
	if n := strings.Index(s[i:], thinkClose); n >= 0 {
		return i + n + len(thinkClose)
	}
	return len(s)
}

// thinkingPrefixEnd returns where the answer starts when s opens inside a
// thinking block, as it does when the chat template wrote the <think> tag
// itself: past the first </think> if no <think> precedes it, else 0.
func thinkingPrefixEnd(s string) int {
	n := strings.Index(s, thinkClose)
	if n < 0 || strings.Contains(s[:n], thinkOpen) {
		return 0
	}
	return n + len(thinkClose)
}

// closeTagAfter returns the index past a stray </tool_call> that follows
// end, separated by whitespace at most, or end when there is none: models
// sometimes close a tag they never opened.
func closeTagAfter(s string, end int) int {
	j := skipSpace(s, end)
	if strings.HasPrefix(s[j:], toolCallClose) {
		return j + len(toolCallClose)
	}
	return end
}
