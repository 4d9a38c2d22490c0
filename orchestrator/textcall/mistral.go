package textcall

import "strings"

const (
	mistralMarker = "[TOOL_CALLS]"
	mistralArgs   = "[ARGS]"
	mistralCallID = "[CALL_ID]"
	pythonTag     = "<|python_tag|>"
)

// mistralAt reads the Mistral call that starts at s[i] with [TOOL_CALLS]:
// either a JSON list (or object) of call objects, or NAME[ARGS]{...},
// optionally NAME[CALL_ID]ID[ARGS]{...}.
func mistralAt(s string, i int, resolve resolveFunc) (calls []Call, end int, ok bool) {
	j := skipSpace(s, i+len(mistralMarker))
	if j < len(s) && (s[j] == '[' || s[j] == '{') {
		return jsonCallsAt(s, j, resolve)
	}
	c, end, ok := namedArgsAt(s, j, resolve)
	if !ok {
		return nil, end, false
	}
	return []Call{c}, end, true
}

// namedArgsAt reads NAME[ARGS]{...} at s[i], the newer Mistral form.
func namedArgsAt(s string, i int, resolve resolveFunc) (Call, int, bool) {
	j := skipWhile(s, i, isNameByte)
	name := s[i:j]
	if rest, ok := strings.CutPrefix(s[j:], mistralCallID); ok {
		j = skipWhile(s, len(s)-len(rest), isNameByte)
	}
	if name == "" || !strings.HasPrefix(s[j:], mistralArgs) {
		return Call{}, j, false
	}
	j = skipSpace(s, j+len(mistralArgs))
	if j >= len(s) || s[j] != '{' && s[j] != '"' {
		return Call{}, j, false
	}
	end, valid := jsonEnd(s, j)
	if !valid {
		return Call{}, end, false
	}
	tool, known := resolve(name)
	args, ok := argumentObject([]byte(s[j:end]))
	if !known || !ok {
		return Call{}, end, false
	}
	return Call{Name: tool, Arguments: args}, end, true
}

// markerAt reads a JSON call value that follows marker (such as llama's
// <|python_tag|>) at s[i], separated from it by whitespace at most.
func markerAt(s string, i int, marker string, resolve resolveFunc) ([]Call, int, bool) {
	j := skipSpace(s, i+len(marker))
	if j >= len(s) || s[j] != '{' && s[j] != '[' {
		return nil, j, false
	}
	return jsonCallsAt(s, j, resolve)
}

// isNameByte reports whether c may appear in a tool name written bare.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '-' || c == '.'
}
