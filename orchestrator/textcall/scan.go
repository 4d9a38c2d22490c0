package textcall

import "strings"

// span is the text of content[start:end], which holds calls.
type span struct {
	start, end int
	calls      []Call
}

// scan walks s once, left to right, and returns the spans that hold calls.
// Whatever starts first claims its text: a code fence, inline code, a
// thinking block, a tagged block, a marker or a JSON value. Text a
// construct claimed without holding calls is skipped whole, never
// searched again for calls inside it, which also keeps the walk linear.
func scan(s string, resolve resolveFunc) []span {
	var spans []span
	for i := thinkingPrefixEnd(s); i < len(s); {
		sp, next := step(s, i, resolve)
		if sp.end > sp.start {
			spans = append(spans, sp)
			next = max(next, sp.end)
		}
		i = max(next, i+1)
	}
	return spans
}

// step reads whatever starts at s[i]. It returns the span of calls found
// there, if any, and where to go on.
func step(s string, i int, resolve resolveFunc) (span, int) {
	rest := s[i:]
	switch {
	case rest[0] == '`' || rest[0] == '~':
		return fenceOrCode(s, i, resolve)
	case strings.HasPrefix(rest, thinkOpen):
		return span{}, thinkEnd(s, i)
	case strings.HasPrefix(rest, toolCallOpen):
		calls, end, ok := toolCallAt(s, i, resolve, withFences)
		return found(i, end, calls, ok), end
	case strings.HasPrefix(rest, functionOpen):
		c, end, ok := functionAt(s, i, resolve)
		return bare(s, i, end, []Call{c}, ok), end
	case strings.HasPrefix(rest, mistralMarker):
		calls, end, ok := mistralAt(s, i, resolve)
		return markerResult(i, end, calls, ok, mistralMarker)
	case strings.HasPrefix(rest, pythonTag):
		calls, end, ok := markerAt(s, i, pythonTag, resolve)
		return markerResult(i, end, calls, ok, pythonTag)
	case rest[0] == '{' || rest[0] == '[':
		calls, end, ok := jsonCallsAt(s, i, resolve)
		return bare(s, i, end, calls, ok), end
	}
	return span{}, i + 1
}

// fenceOrCode reads the code fence or inline code that starts at s[i].
func fenceOrCode(s string, i int, resolve resolveFunc) (span, int) {
	f, ok := fenceAt(s, i)
	switch {
	case ok && callLanguage(f.lang):
		calls, ok := onlyCalls(f.body, resolve, withTags)
		return found(f.start, f.end, calls, ok), f.end
	case ok:
		return span{}, f.end
	case s[i] == '`':
		return span{}, inlineCodeEnd(s, i)
	}
	return span{}, i + 1
}

// markerResult is the outcome of a marker such as [TOOL_CALLS]: its span,
// or, when refused, going on just past the marker.
func markerResult(i, end int, calls []Call, ok bool, marker string) (span, int) {
	if !ok {
		return span{}, i + len(marker)
	}
	return span{i, end, calls}, end
}

// bare is the span of calls written outside any block, which takes in a
// stray closing </tool_call> after them.
func bare(s string, start, end int, calls []Call, ok bool) span {
	if !ok {
		return span{}
	}
	return span{start, closeTagAfter(s, end), calls}
}

// found is the span of calls in a block, which its end already includes.
func found(start, end int, calls []Call, ok bool) span {
	if !ok {
		return span{}
	}
	return span{start, end, calls}
}

// skipWhile returns the index of the first byte at or after i for which
// ok is false.
func skipWhile(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

// skipSpace returns the index of the first byte at or after i that is not
// whitespace.
func skipSpace(s string, i int) int { return skipWhile(s, i, isSpace) }

func isSpace(c byte) bool { return isJSONSpace(c) || c == '\f' || c == '\v' }
