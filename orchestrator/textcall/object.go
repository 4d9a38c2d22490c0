package textcall

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// jsonCallsAt reads the JSON value that starts at s[i] ('{' or '[') as a
// call object or a non-empty list of call objects. end is just past the
// value, or where the text stopped being JSON; ok is false unless every
// object in the value is a call to a tool resolve accepts.
func jsonCallsAt(s string, i int, resolve resolveFunc) (calls []Call, end int, ok bool) {
	end, valid := jsonEnd(s, i)
	if !valid {
		return nil, max(end, i+1), false
	}
	calls, ok = callsFromJSON(s[i:end], resolve)
	return calls, end, ok
}

// callsFromJSON decodes raw, a valid JSON value, as a call object or a
// non-empty list of them, all or nothing.
func callsFromJSON(raw string, resolve resolveFunc) ([]Call, bool) {
	if raw[0] == '{' {
		c, ok := callFromObject(raw, resolve)
		if !ok {
			return nil, false
		}
		return []Call{c}, true
	}
	var items []json.RawMessage
	if json.Unmarshal([]byte(raw), &items) != nil || len(items) == 0 {
		return nil, false
	}
	calls := make([]Call, 0, len(items))
	for _, item := range items {
		c, ok := callFromObject(string(item), resolve)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	return calls, true
}

// callFromObject reads one call object: {"name", "arguments"|"parameters"}
// with optional "type": "function" and "id" (a string or a number), or the
// OpenAI shape whose "function" member holds the name and arguments. Any
// other key makes it something else.
func callFromObject(raw string, resolve resolveFunc) (Call, bool) {
	f, ok := objectFields(raw)
	if !ok || !onlyKeys(f, "name", "arguments", "parameters", "type", "function", "id") {
		return Call{}, false
	}
	if t, has := f["type"]; has && string(t) != `"function"` {
		return Call{}, false
	}
	if id, has := f["id"]; has && id[0] != '"' && id[0] != '-' && !isDigit(id[0]) {
		return Call{}, false
	}
	fn, nested := f["function"]
	if !nested {
		return namedCall(f, resolve)
	}
	if onlyKeys(f, "type", "function", "id") {
		inner, ok := objectFields(string(fn))
		if ok && onlyKeys(inner, "name", "arguments", "parameters") {
			return namedCall(inner, resolve)
		}
	}
	return Call{}, false
}

// namedCall makes the call named by the "name" member of f, with the
// arguments of its "arguments" or "parameters" member.
func namedCall(f map[string]json.RawMessage, resolve resolveFunc) (Call, bool) {
	var name string
	if raw := f["name"]; len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &name) != nil {
		return Call{}, false
	}
	tool, ok := resolve(name)
	if !ok {
		return Call{}, false
	}
	args, hasArgs := f["arguments"]
	params, hasParams := f["parameters"]
	switch {
	case hasArgs && hasParams:
		return Call{}, false
	case hasParams:
		args = params
	case !hasArgs:
		return Call{Name: tool, Arguments: json.RawMessage(`{}`)}, true
	}
	obj, ok := argumentObject(args)
	return Call{Name: tool, Arguments: obj}, ok
}

// argumentObject returns the arguments in v compacted: an object as
// written, an object held in a JSON string decoded, and null or an empty
// string as {}. Anything else, and an object that looks like a JSON schema
// (a tool definition echoed back, not a call), is refused.
func argumentObject(v json.RawMessage) (json.RawMessage, bool) {
	switch v[0] {
	case 'n':
		return json.RawMessage(`{}`), true
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, false
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return json.RawMessage(`{}`), true
		}
		if s[0] != '{' || !json.Valid([]byte(s)) {
			return nil, false
		}
		v = json.RawMessage(s)
	case '{':
	default:
		return nil, false
	}
	if looksLikeSchema(v) {
		return nil, false
	}
	return compact(v)
}

// looksLikeSchema reports whether obj is a JSON schema object: "type":
// "object" with "properties".
func looksLikeSchema(obj json.RawMessage) bool {
	f, ok := objectFields(string(obj))
	return ok && string(f["type"]) == `"object"` && len(f["properties"]) > 0
}

// objectFields decodes the members of a JSON object, refusing duplicate
// keys (which would make the call ambiguous). The values stay raw, so
// that their keys keep the order they were written in.
func objectFields(raw string) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(strings.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	fields := make(map[string]json.RawMessage)
	for dec.More() {
		t, err := dec.Token()
		key, isKey := t.(string)
		if err != nil || !isKey {
			return nil, false
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, false
		}
		if _, dup := fields[key]; dup {
			return nil, false
		}
		fields[key] = v
	}
	_, err := dec.Token()
	return fields, err == nil
}

// onlyKeys reports whether every key of f is one of keys.
func onlyKeys(f map[string]json.RawMessage, keys ...string) bool {
	for k := range f {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}

// compact returns v without insignificant whitespace, keys in place.
func compact(v []byte) (json.RawMessage, bool) {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return nil, false
	}
	return b.Bytes(), true
}
