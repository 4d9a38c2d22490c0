package ollama

import (
	"encoding/json"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider"
)

// message translates a message to the wire. The same message gives the
// same bytes: tool-call arguments keep their key order.
func message(m provider.Message) api.Message {
	out := api.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking,
		ToolName: m.ToolName, ToolCallID: m.ToolCallID}
	for _, img := range m.Images {
		out.Images = append(out.Images, api.ImageData(img.Data))
	}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, toolCall(c))
	}
	return out
}

func toolCall(c provider.ToolCall) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	if len(c.Arguments) > 0 {
		_ = json.Unmarshal(c.Arguments, &args) // the agent keeps JSON objects only
	}
	return api.ToolCall{ID: c.ID, Function: api.ToolCallFunction{Index: c.Index, Name: c.Name, Arguments: args}}
}

// tools translates tool specs to the wire, their properties in the order
// the schema gives them.
func tools(specs []provider.ToolSpec) api.Tools {
	if len(specs) == 0 {
		return nil
	}
	out := make(api.Tools, len(specs))
	for i, s := range specs {
		var params api.ToolFunctionParameters
		_ = json.Unmarshal(s.Parameters, &params) // built by lathe's tools: valid
		out[i] = api.Tool{Type: "function", Function: api.ToolFunction{
			Name: s.Name, Description: s.Description, Parameters: params}}
	}
	return out
}

// chunk translates one streamed reply line.
func chunk(r api.ChatResponse) provider.Chunk {
	c := provider.Chunk{Content: r.Message.Content, Thinking: r.Message.Thinking, Done: r.Done, DoneReason: r.DoneReason}
	for _, tc := range r.Message.ToolCalls {
		c.ToolCalls = append(c.ToolCalls, provider.ToolCall{ID: tc.ID, Index: tc.Function.Index, Name: tc.Function.Name,
			Arguments: plainJSON(tc.Function.Arguments.String())})
	}
	if r.Done {
		c.Metrics = provider.Metrics{
			PromptTokens:     r.PromptEvalCount,
			CompletionTokens: r.EvalCount,
			TotalDuration:    r.TotalDuration,
			LoadDuration:     r.LoadDuration,
			PromptDuration:   r.PromptEvalDuration,
			EvalDuration:     r.EvalDuration,
		}
	}
	return c
}

// plainJSON is JSON text as encoding/json writes it with HTML escaping,
// back without it: the official client writes a call's arguments with
// "&", "<" and ">" as \u0026, \u003c and \u003e, and the arguments are
// shown (logs, stream-json) and kept as the model wrote them. The value
// is the same either way; other escapes are left as they are.
func plainJSON(s string) json.RawMessage {
	if !strings.Contains(s, `\u00`) {
		return json.RawMessage(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(s):
			esc := s[i : i+2]
			if s[i+1] == 'u' && i+6 <= len(s) {
				esc = s[i : i+6]
				switch strings.ToLower(esc) {
				case `\u0026`:
					esc = "&"
				case `\u003c`:
					esc = "<"
				case `\u003e`:
					esc = ">"
				}
				b.WriteString(esc)
				i += 5
				continue
			}
			b.WriteString(esc)
			i++
			continue
		}
		b.WriteByte(c)
	}
	return json.RawMessage(b.String())
}
