package tools

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Schema is what lathe reads of the JSON Schema of a tool defined
// elsewhere (an MCP server's) to repair the arguments a model sends for
// it: the top-level properties, the types lathe knows how to repair
// (others are left to the tool), which are required, and whether others
// are allowed.
type Schema struct {
	params []param
	closed bool // additionalProperties is false
}

// ParseSchema reads schema, a JSON Schema; one it cannot read describes
// no argument.
func ParseSchema(schema json.RawMessage) Schema {
	s := Schema{}
	s.params, s.closed = schemaParams(schema)
	return s
}

// Arguments are the arguments of a call, checked and repaired against a
// Schema.
type Arguments struct {
	// JSON is the object to send.
	JSON json.RawMessage
	// Subject is the call's key argument for people: the first string
	// argument, required ones first, on one line.
	Subject string
	// Repairs lists what was repaired, as Result.Repairs lists it.
	Repairs []string
	// Note tells the model what was repaired and ignored, after the
	// call's result; empty when nothing was.
	Note string
}

// Repair checks raw, the arguments a model sent (a JSON object), against
// s, with the repairs the built-in tools' arguments get where the schema
// says what an argument is: a JSON string holding the object decoded,
// numbers and booleans sent as strings converted, a list sent as lines
// split. A required argument missing is an error; a null is left out; an
// unknown argument is left out, and the model told, when the schema
// forbids others. Errors are messages for the model.
func (s Schema) Repair(raw json.RawMessage) (Arguments, error) {
	var rep argReport
	fields, err := argObject(raw, &rep)
	if err != nil {
		return Arguments{}, err
	}
	out := make(map[string]json.RawMessage, len(fields))
	for name, v := range fields {
		i := slices.IndexFunc(s.params, func(p param) bool { return p.name == name })
		switch {
		case string(v) == "null":
			continue
		case i < 0 && s.closed:
			rep.unknown = append(rep.unknown, name)
			continue
		case i >= 0 && s.params[i].typ != "":
			var fix string
			if v, fix = coerce(s.params[i], v); fix != "" {
				rep.repairs = append(rep.repairs, fix)
			}
		}
		out[name] = v
	}
	slices.Sort(rep.unknown)
	for _, p := range s.params {
		if _, ok := out[p.name]; p.required && !ok {
			return Arguments{}, errors.New("missing required argument " + quote(p.name))
		}
	}
	args, err := json.Marshal(out)
	if err != nil {
		return Arguments{}, errors.New("arguments are not valid JSON: " + err.Error())
	}
	return Arguments{JSON: args, Subject: subjectOf(s.params, out), Repairs: rep.all(), Note: rep.note()}, nil
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// schemaParams reads the top-level properties of a JSON Schema: their
// names, the types lathe knows how to repair (others are left to the
// server), and which are required, in the order the schema lists them
// (properties sorted by name, then required ones first).
func schemaParams(schema json.RawMessage) ([]param, bool) {
	var s struct {
		Properties map[string]struct {
			Type  json.RawMessage `json:"type"`
			Items *struct {
				Type json.RawMessage `json:"type"`
			} `json:"items"`
		} `json:"properties"`
		Required             []string        `json:"required"`
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, false
	}
	var params []param
	for name, p := range s.Properties {
		pr := param{name: name, required: slices.Contains(s.Required, name)}
		switch schemaType(p.Type) {
		case "string":
			pr.typ = typeString
		case "integer":
			pr.typ = typeInteger
		case "number":
			pr.typ = typeNumber
		case "boolean":
			pr.typ = typeBoolean
		case "array":
			if p.Items != nil && schemaType(p.Items.Type) == "string" {
				pr.typ = typeArray
			}
		}
		params = append(params, pr)
	}
	for _, name := range s.Required {
		if _, ok := s.Properties[name]; !ok {
			params = append(params, param{name: name, required: true})
		}
	}
	slices.SortFunc(params, func(a, b param) int {
		switch {
		case a.required != b.required && a.required:
			return -1
		case a.required != b.required:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return params, strings.TrimSpace(string(s.AdditionalProperties)) == "false"
}

// schemaType is a schema's type, the first that is not "null" when it
// lists several.
func schemaType(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	for _, t := range many {
		if t != "null" {
			return t
		}
	}
	return ""
}

// subjectOf is what a card shows of a call: the first string argument,
// required ones first, on one line.
func subjectOf(params []param, args map[string]json.RawMessage) string {
	for _, p := range params {
		var s string
		if v, ok := args[p.name]; ok && json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
			line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
			return clip(line, 80)
		}
	}
	return ""
}
