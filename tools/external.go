package tools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"lathe/orchestrator/provider"
)

// ExternalSpec is a tool that another program serves (an MCP server's):
// its schema comes whole from there, and its calls go there.
type ExternalSpec struct {
	// Spec is what the model is told; Parameters is the tool's JSON Schema.
	Spec provider.ToolSpec
	// Schema is the JSON Schema the arguments are checked and repaired
	// against, when it is not Spec.Parameters (which may be trimmed for
	// the prompt); nil means Spec.Parameters.
	Schema json.RawMessage
	Kind   Kind
	// Limit caps a result's content; zero means DefaultOutputBytes.
	Limit int
	// Server and Tool name the tool where it lives.
	Server, Tool string
	// Preapproved: the user's config approves every call of the tool.
	Preapproved bool
	// Run calls the tool for caller with arguments that are a JSON
	// object.
	Run func(ctx context.Context, caller Caller, args json.RawMessage) (Result, error)
}

// Origin is what a call to another program's tool says of where it goes,
// for the approval dialog and the grants it makes.
type Origin interface {
	// Origin names the server, the tool as the server names it, and the
	// tool as the model calls it.
	Origin() (server, tool, name string)
	// Preapproved reports whether the user's config approves the call.
	Preapproved() bool
	// Arguments are the arguments as they will be sent.
	Arguments() json.RawMessage
}

// AsOrigin returns the Origin of a prepared call, when it has one.
func AsOrigin(c Call) (Origin, bool) { return findCall[Origin](c) }

// CallKind is the kind of a prepared call: the one it says it has (a call
// made through another tool, mcp_call's, takes its target's), else its
// tool's, tool.
func CallKind(c Call, tool Kind) Kind {
	if k, ok := findCall[interface{ Kind() Kind }](c); ok {
		return k.Kind()
	}
	return tool
}

// External returns the tool spec describes. Its arguments get the repairs
// the built-in tools' get, where the schema's top-level properties say
// what they are: a JSON string holding the object decoded, numbers and
// booleans sent as strings converted, a list sent as lines split; a
// required argument missing is refused before anything is sent; a null
// is left out; an unknown argument is left out, and the model told, when
// the schema forbids others.
func External(spec ExternalSpec) Tool {
	schema := spec.Schema
	if schema == nil {
		schema = spec.Spec.Parameters
	}
	if spec.Limit <= 0 {
		spec.Limit = DefaultOutputBytes
	}
	t := &externalTool{spec: spec}
	t.params, t.closed = schemaParams(schema)
	return t
}

type externalTool struct {
	spec   ExternalSpec
	params []param
	closed bool // additionalProperties is false
}

func (t *externalTool) Name() string            { return t.spec.Spec.Name }
func (t *externalTool) Spec() provider.ToolSpec { return t.spec.Spec }
func (t *externalTool) Kind() Kind              { return t.spec.Kind }

// Prepare implements Tool.
func (t *externalTool) Prepare(raw json.RawMessage) (Call, error) {
	var rep argReport
	fields, err := argObject(raw, &rep)
	if err != nil {
		return nil, errors.New(Cap(err.Error(), t.spec.Limit))
	}
	out := make(map[string]json.RawMessage, len(fields))
	for name, v := range fields {
		i := slices.IndexFunc(t.params, func(p param) bool { return p.name == name })
		switch {
		case string(v) == "null":
			continue
		case i < 0 && t.closed:
			rep.unknown = append(rep.unknown, name)
			continue
		case i >= 0 && t.params[i].typ != "":
			var fix string
			if v, fix = coerce(t.params[i], v); fix != "" {
				rep.repairs = append(rep.repairs, fix)
			}
		}
		out[name] = v
	}
	slices.Sort(rep.unknown)
	for _, p := range t.params {
		if _, ok := out[p.name]; p.required && !ok {
			return nil, errors.New(Cap("missing required argument "+quote(p.name), t.spec.Limit))
		}
	}
	args, err := json.Marshal(out)
	if err != nil {
		return nil, errors.New("arguments are not valid JSON: " + err.Error())
	}
	return &externalCall{tool: t, args: args, subject: subjectOf(t.params, out),
		repairs: rep.all(), note: rep.note()}, nil
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

// externalCall is a validated call to another program's tool.
type externalCall struct {
	tool    *externalTool
	args    json.RawMessage
	subject string
	repairs []string
	note    string
}

func (c *externalCall) Subject() string            { return c.subject }
func (c *externalCall) Kind() Kind                 { return c.tool.spec.Kind }
func (c *externalCall) Preapproved() bool          { return c.tool.spec.Preapproved }
func (c *externalCall) Arguments() json.RawMessage { return c.args }
func (c *externalCall) Origin() (server, tool, name string) {
	return c.tool.spec.Server, c.tool.spec.Tool, c.tool.spec.Spec.Name
}

// Run implements Call: the result is capped, and told what was repaired.
func (c *externalCall) Run(ctx context.Context, caller Caller) (Result, error) {
	res, err := c.tool.spec.Run(ctx, caller, c.args)
	res.Content = Cap(res.Content, c.tool.spec.Limit) + c.note
	if len(c.repairs) > 0 {
		res.Repairs = append(slices.Clone(c.repairs), res.Repairs...)
	}
	return res, err
}
