package mcptest

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addCatalog adds a prompt and resources: greet (name, and style if
// given), note://readme (text), note://logo (an image).
func addCatalog(s *sdk.Server) {
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greet someone.", Arguments: []*sdk.PromptArgument{
		{Name: "name", Required: true}, {Name: "style"}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			style := req.Params.Arguments["style"]
			if style == "" {
				style = "plain"
			}
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user",
				Content: &sdk.TextContent{Text: fmt.Sprintf("Say hello to %s, in %s style.", req.Params.Arguments["name"], style)}}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "note://readme", Name: "readme", Description: "What to read first.", MIMEType: "text/plain"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "note://readme", MIMEType: "text/plain", Text: "read me first"}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "note://logo", Name: "logo", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "note://logo", MIMEType: "image/png", Blob: PNG}}}, nil
		})
}
