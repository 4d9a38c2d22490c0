package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// FieldKind is what a form's field takes.
type FieldKind string

const (
	KindText    FieldKind = "text"    // a string, with Format "email", "uri", "date" or "date-time" at times
	KindNumber  FieldKind = "number"  // any number
	KindInteger FieldKind = "integer" // a whole number
	KindBool    FieldKind = "boolean"
	KindChoice  FieldKind = "choice"  // one of Options
	KindChoices FieldKind = "choices" // some of Options
)

// Field is one field of an elicitation's form, as its schema describes it.
type Field struct {
	Name        string
	Title       string // "" when the schema gives none
	Description string
	Kind        FieldKind
	Format      string
	Required    bool
	// Default is the schema's default value, as JSON decodes it (string,
	// float64, bool, []any); nil when it gives none.
	Default any
	// Options are the values a choice takes, with their titles.
	Options []Option
	// Min and Max bound a number; MinLen and MaxLen a text's length, or
	// how many choices are made; nil when unbounded.
	Min, Max       *float64
	MinLen, MaxLen *int
}

// Option is one value a choice takes, and what it is called.
type Option struct {
	Value, Title string
}

// Label is what the field is called: its title, else its name.
func (f Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// schemaProp is a property of an elicitation's schema: primitives and
// enums only, as the spec allows.
type schemaProp struct {
	Type        string       `json:"type"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	Format      string       `json:"format"`
	Default     any          `json:"default"`
	Enum        []any        `json:"enum"`
	EnumNames   []string     `json:"enumNames"`
	OneOf       []titled     `json:"oneOf"`
	AnyOf       []titled     `json:"anyOf"`
	Items       *schemaProp  `json:"items"`
	Minimum     *float64     `json:"minimum"`
	Maximum     *float64     `json:"maximum"`
	MinLength   *int         `json:"minLength"`
	MaxLength   *int         `json:"maxLength"`
	MinItems    *int         `json:"minItems"`
	MaxItems    *int         `json:"maxItems"`
	Properties  schemaFields `json:"properties"`
	Required    []string     `json:"required"`
}

type schemaFields map[string]*schemaProp

// titled is an option of a titled enum: {"const": "a", "title": "A"}.
type titled struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// formFields reads the fields of an elicitation's schema (any value that
// marshals to the JSON Schema), required ones first, each group by name:
// the schema arrives decoded into a map, its order lost.
func formFields(schema any) ([]Field, error) {
	if schema == nil {
		return nil, nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var root schemaProp
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("the form's schema: %w", err)
	}
	var out []Field
	for name, p := range root.Properties {
		if p == nil {
			continue
		}
		f := p.field(name)
		f.Required = slices.Contains(root.Required, name)
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Field) int {
		switch {
		case a.Required != b.Required && a.Required:
			return -1
		case a.Required != b.Required:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// field is the property as a field.
func (p *schemaProp) field(name string) Field {
	f := Field{Name: name, Title: p.Title, Description: p.Description, Format: p.Format, Default: p.Default,
		Min: p.Minimum, Max: p.Maximum, MinLen: p.MinLength, MaxLen: p.MaxLength}
	switch p.Type {
	case "number":
		f.Kind = KindNumber
	case "integer":
		f.Kind = KindInteger
	case "boolean":
		f.Kind = KindBool
	case "array":
		f.Kind, f.MinLen, f.MaxLen = KindChoices, p.MinItems, p.MaxItems
		if p.Items != nil {
			f.Options = p.Items.options()
		}
	default:
		f.Kind = KindText
		if opts := p.options(); len(opts) > 0 {
			f.Kind, f.Options = KindChoice, opts
		}
	}
	return f
}

// options are the values an enum property takes: enum (named by
// enumNames, the legacy form), or oneOf / anyOf of titled constants.
func (p *schemaProp) options() []Option {
	var out []Option
	for i, v := range p.Enum {
		o := Option{Value: fmt.Sprint(v)}
		if i < len(p.EnumNames) {
			o.Title = p.EnumNames[i]
		}
		out = append(out, o)
	}
	for _, t := range append(slices.Clone(p.OneOf), p.AnyOf...) {
		if t.Const != nil {
			out = append(out, Option{Value: fmt.Sprint(t.Const), Title: t.Title})
		}
	}
	return out
}

// Defaults are the form's values where nobody fills it in: each field's
// default, as the spec has clients apply them. ok is false when a
// required field has none: the form cannot be accepted so.
func (e Elicitation) Defaults() (values map[string]any, ok bool) {
	values = map[string]any{}
	ok = true
	for _, f := range e.Fields {
		v, err := f.Check(f.Default)
		switch {
		case f.Default != nil && err == nil:
			values[f.Name] = v
		case f.Required:
			ok = false
		}
	}
	return values, ok
}

// Parse reads what the user typed for a text, number or integer field.
func (f Field) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	switch f.Kind {
	case KindNumber, KindInteger:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, errors.New("not a number")
		}
		return f.Check(n)
	}
	return f.Check(text)
}

// Check returns v as the field's value, or what is wrong with it: its
// kind, its bounds, its options. A whole number is an int64.
func (f Field) Check(v any) (any, error) {
	switch f.Kind {
	case KindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, errors.New("not true or false")
	case KindNumber, KindInteger:
		n, ok := number(v)
		switch {
		case !ok:
			return nil, errors.New("not a number")
		case f.Kind == KindInteger && n != math.Trunc(n):
			return nil, errors.New("not a whole number")
		case f.Min != nil && n < *f.Min, f.Max != nil && n > *f.Max:
			return nil, fmt.Errorf("not %s", f.bounds())
		case f.Kind == KindInteger:
			return int64(n), nil
		}
		return n, nil
	case KindChoices:
		list, ok := v.([]any)
		if s, one := v.([]string); one {
			list, ok = anySlice(s), true
		}
		if !ok {
			return nil, errors.New("not a list")
		}
		var out []any
		for _, x := range list {
			if !f.hasOption(fmt.Sprint(x)) {
				return nil, fmt.Errorf("%v is not one of the choices", x)
			}
			out = append(out, fmt.Sprint(x))
		}
		if err := f.checkLen(len(out), "choice"); err != nil {
			return nil, err
		}
		return out, nil
	}
	s, ok := v.(string)
	switch {
	case !ok:
		return nil, errors.New("not text")
	case f.Kind == KindChoice && !f.hasOption(s):
		return nil, fmt.Errorf("%q is not one of the choices", s)
	}
	if err := f.checkLen(len([]rune(s)), "character"); err != nil {
		return nil, err
	}
	return s, nil
}

func (f Field) hasOption(v string) bool {
	return slices.ContainsFunc(f.Options, func(o Option) bool { return o.Value == v })
}

// checkLen checks a length against MinLen and MaxLen.
func (f Field) checkLen(n int, unit string) error {
	switch {
	case f.MinLen != nil && n < *f.MinLen:
		return fmt.Errorf("at least %d %s%s", *f.MinLen, unit, plural(*f.MinLen))
	case f.MaxLen != nil && n > *f.MaxLen:
		return fmt.Errorf("at most %d %s%s", *f.MaxLen, unit, plural(*f.MaxLen))
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// bounds says what a number must be: "between 1 and 100", "at least 0".
func (f Field) bounds() string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case f.Min != nil && f.Max != nil:
		return "between " + g(*f.Min) + " and " + g(*f.Max)
	case f.Min != nil:
		return "at least " + g(*f.Min)
	case f.Max != nil:
		return "at most " + g(*f.Max)
	}
	return "a number"
}

// Hint says what the field takes, for a person filling it in: "1–100",
// "an email address", "one to three".
func (f Field) Hint() string {
	switch f.Kind {
	case KindNumber, KindInteger:
		if f.Min != nil || f.Max != nil {
			return f.bounds()
		}
		if f.Kind == KindInteger {
			return "a whole number"
		}
		return "a number"
	case KindChoices:
		if err := f.checkLen(0, "choice"); err != nil {
			return err.Error()
		}
		return "any of the choices"
	case KindText:
		switch f.Format {
		case "email":
			return "an email address"
		case "uri":
			return "a URL"
		case "date":
			return "a date, YYYY-MM-DD"
		case "date-time":
			return "a date and time, YYYY-MM-DDTHH:MM:SSZ"
		}
	}
	return ""
}

// number is v as a float64, when it is a number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}
