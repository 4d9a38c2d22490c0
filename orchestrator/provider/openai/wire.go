package openai

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"lathe/orchestrator/provider"
)

// message translates a message to the wire. The same message gives the
// same bytes: a call's arguments go back as the model wrote them. A
// thinking model's reasoning is not sent back: the servers' chat
// templates drop it from the history.
func message(m provider.Message) oai.ChatCompletionMessageParamUnion {
	switch m.Role {
	case "system":
		return oai.SystemMessage(m.Content)
	case "assistant":
		a := oai.ChatCompletionAssistantMessageParam{}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = oai.String(m.Content)
		}
		for _, c := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: argumentText(c)},
				}})
		}
		return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}
	case "tool":
		return oai.ToolMessage(m.Content, m.ToolCallID)
	}
	if len(m.Images) == 0 {
		return oai.UserMessage(m.Content)
	}
	parts := []oai.ChatCompletionContentPartUnionParam{oai.TextContentPart(m.Content)}
	for _, img := range m.Images {
		url := "data:" + http.DetectContentType(img.Data) + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
		parts = append(parts, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: url}))
	}
	return oai.UserMessage(parts)
}

// argumentText is a call's arguments as the model wrote them: arguments
// that were not JSON are kept as a JSON string (see assemble), and go back
// as that string's text.
func argumentText(c provider.ToolCall) string {
	var s string
	if len(c.Arguments) > 0 && c.Arguments[0] == '"' && json.Unmarshal(c.Arguments, &s) == nil {
		return s
	}
	return c.Args()
}

// tools translates tool specs to the wire. Their parameters become maps,
// which the client writes with sorted keys: the same bytes every time.
func tools(specs []provider.ToolSpec) []oai.ChatCompletionToolUnionParam {
	if len(specs) == 0 {
		return nil
	}
	out := make([]oai.ChatCompletionToolUnionParam, len(specs))
	for i, s := range specs {
		var params shared.FunctionParameters
		_ = json.Unmarshal(s.Parameters, &params) // built by lathe's tools: valid
		out[i] = oai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: s.Name, Description: oai.String(s.Description), Parameters: params})
	}
	return out
}
