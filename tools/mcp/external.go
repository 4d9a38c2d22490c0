package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"lathe/orchestrator/provider"
	"lathe/tools"
)

// externalSpec is one of a server's tools as the model is offered it:
// its schema comes whole from the server, and its calls go there.
type externalSpec struct {
	// Spec is what the model is told; Parameters is the tool's JSON Schema.
	Spec provider.ToolSpec
	// Schema is the JSON Schema the arguments are checked and repaired
	// against, when it is not Spec.Parameters (which may be trimmed for
	// the prompt); nil means Spec.Parameters.
	Schema json.RawMessage
	Kind   tools.Kind
	// Limit caps a result's content; zero means tools.DefaultOutputBytes.
	Limit int
	// Server and Tool name the tool where it lives.
	Server, Tool string
	// Preapproved: the user's config approves every call of the tool.
	Preapproved bool
	// Run calls the tool for caller with arguments that are a JSON
	// object.
	Run func(ctx context.Context, caller tools.Caller, args json.RawMessage) (tools.Result, error)
}

// external returns the tool spec describes. Its arguments get the repairs
// the built-in tools' get (see tools.Schema.Repair).
func external(spec externalSpec) tools.Tool {
	schema := spec.Schema
	if schema == nil {
		schema = spec.Spec.Parameters
	}
	if spec.Limit <= 0 {
		spec.Limit = tools.DefaultOutputBytes
	}
	return &externalTool{spec: spec, schema: tools.ParseSchema(schema)}
}

type externalTool struct {
	spec   externalSpec
	schema tools.Schema
}

func (t *externalTool) Name() string            { return t.spec.Spec.Name }
func (t *externalTool) Spec() provider.ToolSpec { return t.spec.Spec }
func (t *externalTool) Kind() tools.Kind        { return t.spec.Kind }

// Prepare implements tools.Tool.
func (t *externalTool) Prepare(raw json.RawMessage) (tools.Call, error) {
	args, err := t.schema.Repair(raw)
	if err != nil {
		return nil, errors.New(tools.Cap(err.Error(), t.spec.Limit))
	}
	return &externalCall{tool: t, args: args}, nil
}

// externalCall is a validated call to a server's tool.
type externalCall struct {
	tool *externalTool
	args tools.Arguments
}

func (c *externalCall) Subject() string            { return c.args.Subject }
func (c *externalCall) Kind() tools.Kind           { return c.tool.spec.Kind }
func (c *externalCall) Preapproved() bool          { return c.tool.spec.Preapproved }
func (c *externalCall) Arguments() json.RawMessage { return c.args.JSON }
func (c *externalCall) Origin() (server, tool, name string) {
	return c.tool.spec.Server, c.tool.spec.Tool, c.tool.spec.Spec.Name
}

// Run implements tools.Call: the result is capped, and told what was
// repaired.
func (c *externalCall) Run(ctx context.Context, caller tools.Caller) (tools.Result, error) {
	res, err := c.tool.spec.Run(ctx, caller, c.args.JSON)
	res.Content = tools.Cap(res.Content, c.tool.spec.Limit) + c.args.Note
	if len(c.args.Repairs) > 0 {
		res.Repairs = append(slices.Clone(c.args.Repairs), res.Repairs...)
	}
	return res, err
}

var (
	_ tools.Tool   = (*externalTool)(nil)
	_ tools.Origin = (*externalCall)(nil)
)
