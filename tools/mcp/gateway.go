package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"lathe/orchestrator/provider"
	"lathe/prompts"
	"lathe/prompts/human"
	"lathe/tools"
)

// gatewayNote tells the user that the MCP tools are offered through the
// gateway, and why.
func gatewayNote(n, tokens, budget int, share float64) string {
	return fmt.Sprintf("the %s of the MCP servers would take ~%s tokens, more than their %.0f%% of the context window "+
		"(%s, mcp.budget): the model finds them with mcp_search and calls them with mcp_call",
		human.Plural(n, "tool"), human.Thousands(tokens), share*100, human.Thousands(budget))
}

// Offered says how the MCP tools are offered: by name, or, over their
// budget, through the gateway's two tools.
func Offered(overBudget bool) string {
	if overBudget {
		return "offered through mcp_search and mcp_call"
	}
	return "offered by name"
}

// gatewayTools are the two tools that stand for entries when their schemas
// would take too much of the window: mcp_search finds tools by what they
// do and gives their whole schemas; mcp_call calls one by name. Each has a
// form for the modes that only read (see ReadOnly), which finds and calls
// only the tools that only read.
func gatewayTools(entries []entry) []tools.Tool {
	g := &gateway{entries: entries}
	return []tools.Tool{g.search(false), g.caller(false)}
}

type gateway struct {
	entries []entry
}

// servers names the servers of the tools offered, in order.
func (g *gateway) servers() []string {
	var out []string
	for _, e := range g.entries {
		if !slices.Contains(out, e.server) {
			out = append(out, e.server)
		}
	}
	return out
}

// offered are the tools the gateway offers: in a mode that only reads,
// those that only read.
func (g *gateway) offered(readOnly bool) []entry {
	if !readOnly {
		return g.entries
	}
	var out []entry
	for _, e := range g.entries {
		if e.readOnly {
			out = append(out, e)
		}
	}
	return out
}

// searchResults is the most tools one search returns.
const searchResults = 5

// search is mcp_search.
func (g *gateway) search(readOnly bool) tools.Tool {
	t := tools.Func("mcp_search", prompts.MCPSearchDescription(g.servers()),
		[]tools.Param{{Name: "query", Type: "string", Required: true, Description: prompts.MCPSearchQuery()}},
		tools.KindRead, func(a struct {
			Query string `json:"query"`
		}) (tools.Call, error) {
			q := strings.TrimSpace(a.Query)
			if q == "" {
				return nil, errors.New(`argument "query" is empty: say what you want to do`)
			}
			return tools.RunFunc(q, func(context.Context, tools.Caller) (tools.Result, error) {
				return g.find(q, readOnly), nil
			}), nil
		})
	return readOnlyForm{Tool: t, readOnly: func() tools.Tool { return g.search(true) }}
}

// wordBreaks splits the words of tool names (read_file, list-issues).
var wordBreaks = strings.NewReplacer("_", " ", "-", " ")

// find returns the tools that match q best: the more of its words a
// tool's name and description hold, the better; ties keep the servers'
// order.
func (g *gateway) find(q string, readOnly bool) tools.Result {
	words := strings.Fields(strings.ToLower(wordBreaks.Replace(q)))
	type hit struct {
		e     entry
		score int
	}
	var hits []hit
	all := g.offered(readOnly)
	for _, e := range all {
		text := strings.ToLower(wordBreaks.Replace(e.tool.Name() + " " + e.desc))
		score := 0
		for _, w := range words {
			if strings.Contains(text, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{e, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	if len(hits) == 0 {
		names := make([]string, len(all))
		for i, e := range all {
			names[i] = e.tool.Name()
		}
		return tools.Result{Content: prompts.MCPSearchNone(q, names), Summary: "no match"}
	}
	var found []prompts.MCPTool
	for _, h := range hits[:min(len(hits), searchResults)] {
		found = append(found, prompts.MCPTool{Name: h.e.tool.Name(), Description: h.e.desc, Schema: compact(h.e.schema)})
	}
	return tools.Result{Content: prompts.MCPSearchResult(found), Summary: human.Plural(len(found), "tool")}
}

// compact is a schema as compact JSON, without what says nothing to a
// model ($schema, examples and the like) but with its descriptions whole.
func compact(schema json.RawMessage) string {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return string(schema)
	}
	b, err := json.Marshal(stripNoise(v))
	if err != nil {
		return string(schema)
	}
	return string(b)
}

func stripNoise(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k := range v {
			switch k {
			case "$schema", "$id", "$comment", "examples", "example":
				delete(v, k)
			default:
				v[k] = stripNoise(v[k])
			}
		}
	case []any:
		for i := range v {
			v[i] = stripNoise(v[i])
		}
	}
	return v
}

// caller is mcp_call: it prepares the call of the tool it names as that
// tool does (the same repairs of its arguments), and the call has that
// tool's kind: one that may change things asks first.
func (g *gateway) caller(readOnly bool) tools.Tool {
	spec := provider.ToolSpec{Name: "mcp_call", Description: prompts.MCPCallDescription(),
		Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"tool":{"type":"string","description":%q},`+
			`"arguments":{"type":"object","description":%q}},"required":["tool"]}`, prompts.MCPCallTool(), prompts.MCPCallArguments()))}
	kind := tools.KindExternal
	if readOnly {
		kind = tools.KindRead
	}
	t := &callTool{g: g, spec: spec, kind: kind, readOnly: readOnly}
	return readOnlyForm{Tool: t, readOnly: func() tools.Tool { return g.caller(true) }}
}

type callTool struct {
	g        *gateway
	spec     provider.ToolSpec
	kind     tools.Kind
	readOnly bool
}

func (t *callTool) Name() string            { return t.spec.Name }
func (t *callTool) Spec() provider.ToolSpec { return t.spec }
func (t *callTool) Kind() tools.Kind        { return t.kind }

// Prepare implements tools.Tool: the named tool prepares its arguments.
func (t *callTool) Prepare(raw json.RawMessage) (tools.Call, error) {
	var a struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if inner, ok := unquote(raw); ok {
		raw = inner
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, errors.New(`arguments must be a JSON object with "tool" and "arguments"`)
	}
	name := strings.TrimSpace(a.Tool)
	if name == "" {
		return nil, errors.New(`missing required argument "tool"`)
	}
	i := slices.IndexFunc(t.g.entries, func(e entry) bool { return strings.EqualFold(e.tool.Name(), name) })
	if i < 0 {
		return nil, errors.New(prompts.MCPUnknownTool(name))
	}
	e := t.g.entries[i]
	if t.readOnly && !e.readOnly {
		return nil, errors.New(prompts.MCPNotReadOnly(e.tool.Name()))
	}
	call, err := e.tool.Prepare(a.Arguments)
	if err != nil {
		return nil, err
	}
	return viaGateway{Call: call}, nil
}

// unquote is the object a JSON string holds, for arguments sent as one.
func unquote(raw json.RawMessage) (json.RawMessage, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil || !json.Valid([]byte(s)) {
		return nil, false
	}
	return json.RawMessage(s), true
}

// viaGateway is a call made through mcp_call: its kind and origin are its
// target's (see tools.CallKind, tools.AsOrigin).
type viaGateway struct{ tools.Call }

func (c viaGateway) Unwrap() tools.Call { return c.Call }

// readOnlyForm is a tool with another form for the modes that only read.
type readOnlyForm struct {
	tools.Tool
	readOnly func() tools.Tool
}

// ReadOnly is the tool's form for a mode that only reads.
func (r readOnlyForm) ReadOnly() tools.Tool { return r.readOnly() }
