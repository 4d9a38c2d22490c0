package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
	"lathe/tools"
)

// result turns what a tool returned into lathe's result: the text parts
// joined, images attached (and named in the text; a model that cannot see
// is sent only their names), a resource as its URI and text, structured
// content as JSON when there is nothing else; a result the server marks
// as an error is one for the model too.
func result(r *sdk.CallToolResult) tools.Result {
	var parts []string
	var out tools.Result
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			// As the server sent it: its size is the server's business.
			out.Images = append(out.Images, provider.Image{Name: fmt.Sprintf("image %d", len(out.Images)+1), Data: c.Data})
			parts = append(parts, fmt.Sprintf("[image %d: %s, %s]", len(out.Images), c.MIMEType, human.Bytes(int64(len(c.Data)))))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s, not shown]", c.MIMEType, human.Bytes(int64(len(c.Data)))))
		case *sdk.EmbeddedResource:
			parts = append(parts, resourceText(c.Resource))
		case *sdk.ResourceLink:
			link := "[resource " + c.URI
			if c.Name != "" {
				link += ": " + c.Name
			}
			if c.Description != "" {
				link += " (" + firstSentence(c.Description) + ")"
			}
			parts = append(parts, link+"]")
		}
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out.Content = strings.Join(parts, "\n")
	out.IsError = r.IsError
	switch {
	case r.IsError:
		out.Summary = "error: " + human.Line(firstSentence(out.Content), 60)
		out.Content = "error: " + out.Content
	case out.Content == "":
		out.Summary = "no output"
	default:
		out.Summary = human.Plural(strings.Count(strings.TrimRight(out.Content, "\n"), "\n")+1, "line")
	}
	return out
}

// resourceText is an embedded resource as text: its URI, then its text,
// or what it holds when that is not text.
func resourceText(r *sdk.ResourceContents) string {
	if r == nil {
		return "[resource]"
	}
	head := "[resource " + r.URI
	if r.MIMEType != "" {
		head += " (" + r.MIMEType + ")"
	}
	if r.Text != "" || len(r.Blob) == 0 {
		return head + "]\n" + r.Text
	}
	return fmt.Sprintf("%s: %s of binary data, not shown]", head, human.Bytes(int64(len(r.Blob))))
}
