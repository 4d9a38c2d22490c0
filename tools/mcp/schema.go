package mcp

import (
	"encoding/json"
	"strings"
	"unicode"
)

// firstSentence is the first sentence of a description, on one line: up
// to the first full stop followed by a space, or the first blank line, at
// most 200 bytes.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' && !abbreviation(s[:i]) {
			s = s[:i+1]
			break
		}
	}
	if len(s) > 200 {
		cut := 200
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = strings.TrimRightFunc(s[:cut], unicode.IsSpace) + "…"
	}
	return s
}

// abbreviation reports whether text ends with a word whose full stop is
// not a sentence's end ("e.g.", "i.e.", "etc", "vs").
func abbreviation(text string) bool {
	i := strings.LastIndexByte(text, ' ')
	w := strings.ToLower(text[i+1:])
	switch w {
	case "e.g", "i.e", "etc", "vs", "eg", "ie", "cf":
		return true
	}
	return false
}

// minifySchema makes a tool's input schema small for the prompt: every
// description cut to its first sentence; titles, examples and comments
// left out; references to $defs (or definitions) replaced by the
// definition, once along each path (a definition that refers to itself is
// left as an object past that); the definitions themselves left out. The
// JSON is compact, its keys sorted, so that it is the same bytes on every
// run. A schema that does not parse as an object is sent as {"type":
// "object"}.
func minifySchema(raw json.RawMessage) json.RawMessage {
	var root map[string]any
	if json.Unmarshal(raw, &root) != nil || root == nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	defs := map[string]any{}
	for _, key := range []string{"$defs", "definitions"} {
		if d, ok := root[key].(map[string]any); ok {
			for name, v := range d {
				defs["#/"+key+"/"+name] = v
			}
		}
	}
	out := minifyNode(root, defs, map[string]bool{})
	if m, ok := out.(map[string]any); ok {
		if _, ok := m["type"]; !ok {
			m["type"] = "object"
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

// dropped are the keys that say nothing a model needs to call a tool.
var dropped = map[string]bool{
	"$defs": true, "definitions": true, "$schema": true, "$id": true, "$comment": true,
	"title": true, "examples": true, "example": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

func minifyNode(v any, defs map[string]any, path map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			def, known := defs[ref]
			if !known || path[ref] {
				return map[string]any{"type": "object"}
			}
			path[ref] = true
			out := minifyNode(def, defs, path)
			delete(path, ref)
			return out
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			switch {
			case dropped[k]:
			case k == "description":
				if s, ok := x.(string); ok && strings.TrimSpace(s) != "" {
					out[k] = firstSentence(s)
				}
			case k == "properties" || k == "patternProperties":
				// Names of properties, not schema keywords: a property
				// called "title" is kept.
				props, ok := x.(map[string]any)
				if !ok {
					continue
				}
				m := make(map[string]any, len(props))
				for name, p := range props {
					m[name] = minifyNode(p, defs, path)
				}
				out[k] = m
			default:
				out[k] = minifyNode(x, defs, path)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = minifyNode(x, defs, path)
		}
		return out
	}
	return v
}
