// Package textcall finds tool calls that a model wrote as text instead of
// sending them as tool calls.
package textcall

import "encoding/json"

// Call is one tool call found in text.
type Call struct {
	// Name is the registered tool name the written name resolved to.
	Name string
	// Arguments is a JSON object, compacted, its keys in the order the
	// model wrote them ({} when it wrote none).
	Arguments json.RawMessage
}

// resolveFunc maps a tool name as a model wrote it to a registered name.
type resolveFunc = func(name string) (string, bool)

// Find returns the calls written in content, in order, and content with
// their text removed (fences, tags and markers included, the whitespace
// left at each seam reduced to a space, a newline or one blank line, and
// the whole trimmed).
//
// resolve maps a name as the model wrote it to a registered tool name; a
// call whose name it rejects is not a call and its text stays. A nil
// resolve rejects every name. With no calls found, calls is nil and rest
// == content exactly.
//
// Find errs towards leaving text alone, since a false call runs a tool
// the model did not mean to run: code fences in a programming language,
// inline code, thinking blocks, malformed or truncated JSON, objects with
// keys a call does not have, and lists or blocks in which any call is
// refused are all left as text.
func Find(content string, resolve func(name string) (string, bool)) (calls []Call, rest string) {
	if resolve == nil {
		return nil, content
	}
	spans := scan(content, resolve)
	if len(spans) == 0 {
		return nil, content
	}
	for _, sp := range spans {
		calls = append(calls, sp.calls...)
	}
	return calls, cut(content, spans)
}
