package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// AskSchema is the form the ask tool asks to fill: a required name with no
// default, and fields of every kind with defaults.
const AskSchema = `{"type":"object","properties":{
"name":{"type":"string","title":"Name","description":"Your name"},
"age":{"type":"integer","minimum":0,"maximum":150,"default":30},
"score":{"type":"number","default":9.5},
"color":{"type":"string","enum":["red","green"],"enumNames":["Red","Green"],"default":"green"},
"agree":{"type":"boolean","default":true},
"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]},"default":["b"]}
},"required":["name"]}`

// addRequests adds the tools that send the client requests.
func addRequests(add func(name, desc, schema string, readOnly bool, h func(context.Context, *sdk.CallToolRequest, map[string]any) *sdk.CallToolResult)) {
	add("roots", "List the client's roots.", `{"type":"object"}`, true,
		func(ctx context.Context, req *sdk.CallToolRequest, _ map[string]any) *sdk.CallToolResult {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return failed(err)
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.Name+" "+r.URI)
			}
			return text(strings.Join(uris, "\n"))
		})
	add("ask", "Ask the user to fill a form.", `{"type":"object"}`, true,
		func(ctx context.Context, req *sdk.CallToolRequest, _ map[string]any) *sdk.CallToolResult {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(AskSchema)})
			if err != nil {
				return failed(err)
			}
			b, _ := json.Marshal(res.Content)
			return text(res.Action + " " + string(b))
		})
	add("ask_url", "Ask the user to open a page.", `{"type":"object"}`, true,
		func(ctx context.Context, req *sdk.CallToolRequest, _ map[string]any) *sdk.CallToolResult {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Sign in, please.",
				URL: "https://example.com/login", ElicitationID: "e1"})
			if err != nil {
				return failed(err)
			}
			return text(res.Action)
		})
	add("sample", "Have the client's model answer.", `{"type":"object","properties":{"text":{"type":"string"}}}`, true,
		func(ctx context.Context, req *sdk.CallToolRequest, a map[string]any) *sdk.CallToolResult {
			res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{
				SystemPrompt: "You are terse.", MaxTokens: 50,
				Messages:         []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: fmt.Sprint(a["text"])}}},
				ModelPreferences: &sdk.ModelPreferences{Hints: []*sdk.ModelHint{{Name: "tiny"}}},
			})
			if err != nil {
				return failed(err)
			}
			answer := ""
			if t, ok := res.Content.(*sdk.TextContent); ok {
				answer = t.Text
			}
			return text(fmt.Sprintf("%s said %q (%s)", res.Model, answer, res.StopReason))
		})
}

func failed(err error) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}
}
