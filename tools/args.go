package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
)

// paramType is the JSON Schema type of a tool argument.
type paramType string

const (
	typeString  paramType = "string"
	typeInteger paramType = "integer"
	typeBoolean paramType = "boolean"
)

// param describes one tool argument. A tool's list of params is the one
// source of its schema, of which arguments are required and of what is
// unknown, so they cannot drift apart. Its names must match the json tags of
// the struct the tool decodes its arguments into (a test checks that).
type param struct {
	name     string
	typ      paramType
	desc     string
	required bool
}

// spec is what the model is told about a tool.
type spec struct {
	name   string
	desc   string
	params []param
}

// definition builds the schema sent to Ollama, properties in spec order.
func (s spec) definition() api.Tool {
	props := api.NewToolPropertiesMap()
	var required []string
	for _, p := range s.params {
		props.Set(p.name, api.ToolProperty{Type: api.PropertyType{string(p.typ)}, Description: p.desc})
		if p.required {
			required = append(required, p.name)
		}
	}
	return api.Tool{
		Type: "function",
		Function: api.ToolFunction{
			Name:        s.name,
			Description: s.desc,
			Parameters:  api.ToolFunctionParameters{Type: "object", Required: required, Properties: props},
		},
	}
}

// decodeArgs decodes the arguments the model sent into a T whose json tags
// are the names in params. It returns the names of the arguments that were
// sent but are not in params, sorted, so the caller can tell the model they
// were ignored. Errors are messages for the model.
//
// A null argument counts as absent. A string holding an integer or a boolean
// is accepted for an integer or boolean argument ("10", "true"), and so is an
// integral number written as a float (10.0): small models send those often.
func decodeArgs[T any](raw json.RawMessage, params []param) (T, []string, error) {
	var out T
	fields, err := argObject(raw)
	if err != nil {
		return out, nil, err
	}
	var unknown []string
	for name := range fields {
		if !slices.ContainsFunc(params, func(p param) bool { return p.name == name }) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	known := make(map[string]json.RawMessage, len(params))
	for _, p := range params {
		v, ok := fields[p.name]
		if !ok || string(v) == "null" {
			if p.required {
				return out, nil, fmt.Errorf("missing required argument %q", p.name)
			}
			continue
		}
		known[p.name] = coerce(p.typ, v)
	}
	data, err := json.Marshal(known)
	if err != nil {
		return out, nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return out, nil, typeError(err, params, fields)
	}
	return out, unknown, nil
}

// argObject parses raw as a JSON object. Empty input counts as {}.
func argObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	if raw[0] != '{' {
		if !json.Valid(raw) {
			return nil, errors.New("arguments are not valid JSON; send a JSON object")
		}
		return nil, fmt.Errorf("arguments must be a JSON object, got %s %s", jsonKind(raw), clip(string(raw), 40))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("arguments are not a valid JSON object: %v", err)
	}
	return fields, nil
}

// coerce rewrites the spellings decodeArgs tolerates into the JSON type the
// argument has; anything else is returned unchanged for json to judge.
func coerce(typ paramType, v json.RawMessage) json.RawMessage {
	switch typ {
	case typeInteger:
		s := string(v)
		if v[0] == '"' && json.Unmarshal(v, &s) != nil {
			return v
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			return strconv.AppendInt(nil, n, 10)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.AppendInt(nil, int64(f), 10)
		}
	case typeBoolean:
		var s string
		if v[0] == '"' && json.Unmarshal(v, &s) == nil {
			if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
				return strconv.AppendBool(nil, b)
			}
		}
	}
	return v
}

// typeError turns a json decoding error into a message naming the argument,
// the type it must have and the value that was sent.
func typeError(err error, params []param, fields map[string]json.RawMessage) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("arguments could not be decoded: %v", err)
	}
	want := "of another type"
	for _, p := range params {
		if p.name == te.Field {
			want = article(p.typ)
		}
	}
	got := te.Value
	if v, ok := fields[te.Field]; ok {
		got = jsonKind(v) + " " + clip(string(v), 40)
	}
	return fmt.Errorf("argument %q must be %s, got %s", te.Field, want, got)
}

func article(t paramType) string {
	if t == typeInteger {
		return "an integer"
	}
	return "a " + string(t)
}

// jsonKind names the JSON type of a valid JSON value.
func jsonKind(v []byte) string {
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// clip shortens s to at most n bytes (on a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeStart(s, n)] + "…"
}
