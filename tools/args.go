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

	"lathe/orchestrator/provider"
)

// paramType is the JSON Schema type of a tool argument.
type paramType string

const (
	typeString  paramType = "string"
	typeInteger paramType = "integer"
	typeBoolean paramType = "boolean"
	typeNumber  paramType = "number"
	typeArray   paramType = "array" // of strings
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
	// file marks a string that holds a whole file's content: an object
	// or array sent for it is taken as its JSON text.
	file bool
	// enum lists the values a string may take, for the schema; the tool
	// checks them.
	enum []string
}

// spec is what the model is told about a tool.
type spec struct {
	name   string
	desc   string
	params []param
}

// toolSpec builds the spec sent to the model: a JSON Schema object whose
// properties come in spec order, so that it is the same bytes every time.
func (s spec) toolSpec() provider.ToolSpec {
	type property struct {
		Type        paramType         `json:"type"`
		Items       map[string]string `json:"items,omitempty"`
		Description string            `json:"description,omitempty"`
		Enum        []string          `json:"enum,omitempty"`
	}
	var b bytes.Buffer
	var required []string
	b.WriteString(`{"type":"object","properties":{`)
	for i, p := range s.params {
		prop := property{Type: p.typ, Description: p.desc, Enum: p.enum}
		if p.typ == typeArray {
			prop.Items = map[string]string{"type": "string"}
		}
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.name)
		val, _ := json.Marshal(prop) // strings and string lists: cannot fail
		b.Write(name)
		b.WriteByte(':')
		b.Write(val)
		if p.required {
			required = append(required, p.name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		req, _ := json.Marshal(required)
		b.WriteString(`,"required":`)
		b.Write(req)
	}
	b.WriteByte('}')
	return provider.ToolSpec{Name: s.name, Description: s.desc, Parameters: b.Bytes()}
}

// argReport is what decodeArgs found besides the values.
type argReport struct {
	repairs []string // what was fixed, a few words each, in the order found
	unknown []string // arguments sent that are not in params, sorted
}

// decodeArgs decodes the arguments the model sent into a T whose json tags
// are the names in params. Besides the values, it reports what it repaired
// and which arguments it ignored because they are not in params, so the
// caller can tell the model. Errors are messages for the model.
//
// A null argument counts as absent. Small models get the encoding wrong in
// a few predictable ways, which are repaired: arguments sent as a JSON
// string holding the object; a string holding an integer or a boolean for
// an integer or boolean argument ("10", " 10 ", "false", "TRUE"); an
// integral number written as a float (10.0). Booleans are spelt as
// strconv.ParseBool reads them: "true", "TRUE", "True", "1", "t", "false"...
func decodeArgs[T any](raw json.RawMessage, params []param) (T, argReport, error) {
	var out T
	var rep argReport
	fields, err := argObject(raw, &rep)
	if err != nil {
		return out, rep, err
	}
	for name := range fields {
		if !slices.ContainsFunc(params, func(p param) bool { return p.name == name }) {
			rep.unknown = append(rep.unknown, name)
		}
	}
	slices.Sort(rep.unknown)
	known := make(map[string]json.RawMessage, len(params))
	for _, p := range params {
		v, ok := fields[p.name]
		if !ok || string(v) == "null" {
			if p.required {
				return out, rep, fmt.Errorf("missing required argument %q", p.name)
			}
			continue
		}
		v, fix := coerce(p, v)
		if fix != "" {
			rep.repairs = append(rep.repairs, fix)
		}
		known[p.name] = v
	}
	data, err := json.Marshal(known)
	if err != nil {
		return out, rep, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return out, rep, typeError(err, params, fields)
	}
	return out, rep, nil
}

// argObject parses raw as a JSON object. Empty input counts as {}. A JSON
// string holding an object is decoded and used, and noted in rep.
func argObject(raw json.RawMessage, rep *argReport) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	if inner, ok := stringObject(raw); ok {
		raw = inner
		rep.repairs = append(rep.repairs, "arguments sent as a JSON string")
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

// stringObject returns the JSON object raw holds when raw is a JSON string
// whose text is a valid JSON object.
func stringObject(raw json.RawMessage) (json.RawMessage, bool) {
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	inner := bytes.TrimSpace([]byte(s))
	if len(inner) == 0 || inner[0] != '{' || !json.Valid(inner) {
		return nil, false
	}
	return inner, true
}

// coerce rewrites the spellings decodeArgs tolerates into the JSON type the
// argument p has, and says what it fixed ("" when nothing); anything else is
// returned unchanged for json to judge.
func coerce(p param, v json.RawMessage) (json.RawMessage, string) {
	s, quoted := string(v), v[0] == '"'
	if p.typ == typeArray {
		return stringList(p, v)
	}
	if p.typ == typeString {
		if p.file {
			return stringOf(p, v)
		}
		return v, ""
	}
	if quoted && json.Unmarshal(v, &s) != nil {
		return v, ""
	}
	s = strings.TrimSpace(s)
	fix := ""
	if quoted {
		fix = strconv.Quote(p.name) + " sent as a string"
	}
	switch p.typ {
	case typeInteger:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.AppendInt(nil, n, 10), fix
		}
		f, err := strconv.ParseFloat(s, 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			if !quoted {
				fix = strconv.Quote(p.name) + " sent as a float"
			}
			return strconv.AppendInt(nil, int64(f), 10), fix
		}
	case typeBoolean:
		if b, err := strconv.ParseBool(s); quoted && err == nil {
			return strconv.AppendBool(nil, b), fix
		}
	case typeNumber:
		if f, err := strconv.ParseFloat(s, 64); quoted && err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return strconv.AppendFloat(nil, f, 'g', -1, 64), fix
		}
	}
	return v, ""
}

// stringOf takes an object or array sent for a string argument as its JSON
// text: models write a JSON file's content as JSON rather than as a string
// holding it.
func stringOf(p param, v json.RawMessage) (json.RawMessage, string) {
	if v[0] != '{' && v[0] != '[' {
		return v, ""
	}
	var buf bytes.Buffer
	if json.Indent(&buf, v, "", "  ") != nil {
		return v, ""
	}
	buf.WriteByte('\n')
	text, _ := json.Marshal(buf.String())
	return text, strconv.Quote(p.name) + " sent as JSON, used as its text"
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
	switch t {
	case typeInteger:
		return "an integer"
	case typeArray:
		return "an array of strings"
	case typeNumber:
		return "a number"
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

// stringList rewrites what models send for a list of strings into one:
// a JSON string holding the list, a string with one item per line (list
// markers dropped), or a list whose items are objects (their text taken)
// or numbers.
func stringList(p param, v json.RawMessage) (json.RawMessage, string) {
	var fix string
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return v, ""
		}
		if inner := bytes.TrimSpace([]byte(s)); len(inner) > 0 && inner[0] == '[' && json.Valid(inner) {
			v, fix = inner, strconv.Quote(p.name)+" sent as a JSON string"
		} else {
			var items []string
			for line := range strings.Lines(s) {
				if line = listItem(line); line != "" {
					items = append(items, line)
				}
			}
			out, _ := json.Marshal(items)
			return out, strconv.Quote(p.name) + " sent as a string, one item per line"
		}
	}
	var raw []json.RawMessage
	if v[0] != '[' || json.Unmarshal(v, &raw) != nil {
		return v, fix
	}
	items := make([]string, 0, len(raw))
	changed := false
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			items = append(items, s)
			continue
		}
		text, ok := itemText(r)
		if !ok {
			return v, fix // for json to report
		}
		items = append(items, text)
		changed = true
	}
	if changed {
		fix = strconv.Quote(p.name) + " items sent as objects or numbers, their text used"
		v, _ = json.Marshal(items)
	}
	return v, fix
}

// itemText is the text of a list item sent as something other than a
// string: a number, or an object with one string field or a field named
// like text.
func itemText(r json.RawMessage) (string, bool) {
	var n json.Number
	if json.Unmarshal(r, &n) == nil {
		return n.String(), true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(r, &obj) != nil {
		return "", false
	}
	strs := map[string]string{}
	for k, raw := range obj {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			strs[strings.ToLower(k)] = s
		}
	}
	for _, k := range []string{"text", "description", "step", "title", "content", "task", "name"} {
		if s, ok := strs[k]; ok {
			return s, true
		}
	}
	if len(strs) == 1 {
		for _, s := range strs {
			return s, true
		}
	}
	return "", false
}

// listItem is a line of a list without its marker ("- ", "* ", "3. ",
// "3) ") and surrounding space.
func listItem(line string) string {
	line = strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(line, "- "); ok {
		return strings.TrimSpace(rest)
	}
	if rest, ok := strings.CutPrefix(line, "* "); ok {
		return strings.TrimSpace(rest)
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') {
		return strings.TrimSpace(line[i+1:])
	}
	return line
}
