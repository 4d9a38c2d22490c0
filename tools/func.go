package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// Param describes one argument of a tool made with Func.
type Param struct {
	Name        string
	Type        string // "string", "integer", "boolean", or "array" (of strings)
	Description string
	Enum        []string // the values a string may take; the tool checks them
	Required    bool
}

// Func returns a tool defined outside this package, with the same argument
// handling as the built-in ones: its schema is built from params, and the
// arguments the model sends are decoded into T (whose json tags are the
// params' names) with the same repairs, which the model is told about,
// before check turns them into a call. Its results are capped at
// DefaultOutputBytes.
func Func[T any](name, desc string, params []Param, kind Kind, check func(T) (Call, error)) Tool {
	s := spec{name: name, desc: desc}
	for _, p := range params {
		s.params = append(s.params, param{name: p.Name, typ: paramType(p.Type), desc: p.Description,
			required: p.Required, enum: p.Enum})
	}
	return &funcTool[T]{base: newBase(s, DefaultOutputBytes), kind: kind, check: check}
}

type funcTool[T any] struct {
	base
	kind  Kind
	check func(T) (Call, error)
}

func (t *funcTool[T]) Kind() Kind { return t.kind }

func (t *funcTool[T]) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, t.check)
}

// RunFunc is a call whose key argument is subject and whose work is run.
func RunFunc(subject string, run func(context.Context, Caller) (Result, error)) Call {
	return funcCall{subject: subject, run: run}
}

type funcCall struct {
	subject string
	run     func(context.Context, Caller) (Result, error)
}

func (c funcCall) Subject() string { return c.subject }
func (c funcCall) Run(ctx context.Context, caller Caller) (Result, error) {
	return c.run(ctx, caller)
}

// OneOf checks that v is one of the values allowed, and says which are
// when it is not.
func OneOf(name, v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("argument %q must be one of %s, got %q", name, listNames(allowed), v)
}
