package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
)

// codeRejected is the error a client answers a sampling request it will
// not serve with, as the spec's examples have it.
const codeRejected = -1

// sample answers a server's sampling/createMessage: once the policy, or
// the user, allows it, the model answers; a refusal is an error the
// server gets at once.
func (s *server) sample(ctx context.Context, req *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
	q, err := samplingRequest(s.name, req.Params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	ctx, stop := s.withinCalls(ctx)
	defer stop()
	if why := s.approveSampling(ctx, q); why != "" {
		return nil, &jsonrpc.Error{Code: codeRejected, Message: why}
	}
	sampler := s.m.opts.Sampler
	if sampler == nil {
		return nil, &jsonrpc.Error{Code: codeRejected, Message: "lathe has no model to answer with"}
	}
	r, err := sampler.Sample(ctx, q)
	if err != nil {
		s.m.tell(s.name, fmt.Sprintf("MCP server %s asked the model for an answer, which failed: %s", s.name, human.Line(err.Error(), 200)))
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the model failed: " + err.Error()}
	}
	return samplingResult(r), nil
}

// approveSampling returns why the model may not answer q; "" when it may.
func (s *server) approveSampling(ctx context.Context, q SamplingRequest) string {
	switch s.cfg.sampling() {
	case PolicyDeny:
		return "the user does not let this server use the model (mcp.sampling = \"deny\")"
	case PolicyAllow:
		return ""
	}
	s.mu.Lock()
	granted := s.samplingGranted
	s.mu.Unlock()
	if granted {
		return ""
	}
	asker := s.m.asker()
	if asker == nil {
		s.m.tell(s.name, fmt.Sprintf("MCP server %s asked the model for an answer: refused: nobody can approve it in a run like this one "+
			"(mcp.sampling = \"allow\" lets it)", s.name))
		return "nobody can approve the request in this run (lathe's mcp.sampling setting is \"ask\")"
	}
	d := asker.ApproveSampling(ctx, q)
	switch {
	case ctx.Err() != nil:
		return "cancelled"
	case !d.Allow:
		return "the user rejected the sampling request"
	case d.Session:
		s.mu.Lock()
		s.samplingGranted = true
		s.mu.Unlock()
	}
	return ""
}

// samplingRequest is the server's request as lathe's model takes it.
func samplingRequest(server string, p *sdk.CreateMessageWithToolsParams) (SamplingRequest, error) {
	q := SamplingRequest{Server: server, System: p.SystemPrompt, MaxTokens: int(p.MaxTokens)}
	if p.ModelPreferences != nil {
		for _, h := range p.ModelPreferences.Hints {
			if h != nil && strings.TrimSpace(h.Name) != "" {
				q.Hints = append(q.Hints, strings.TrimSpace(h.Name))
			}
		}
	}
	for _, t := range p.Tools {
		if t == nil {
			continue
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		q.Tools = append(q.Tools, provider.ToolSpec{Name: t.Name, Description: t.Description, Parameters: schema})
	}
	if p.ToolChoice != nil {
		q.ToolChoice = p.ToolChoice.Mode
	}
	for _, m := range p.Messages {
		if m == nil {
			continue
		}
		msgs, err := samplingMessages(m)
		if err != nil {
			return SamplingRequest{}, err
		}
		q.Messages = append(q.Messages, msgs...)
	}
	if len(q.Messages) == 0 {
		return SamplingRequest{}, fmt.Errorf("no messages to answer")
	}
	return q, nil
}

// samplingMessages is one message of a sampling request as lathe's:
// text and images in a user's or the assistant's message, the assistant's
// tool calls, and the user's tool results, each a message of its own.
func samplingMessages(m *sdk.SamplingMessageV2) ([]provider.Message, error) {
	msg := provider.Message{Role: string(m.Role)}
	var text []string
	var out []provider.Message
	for _, c := range m.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			text = append(text, c.Text)
		case *sdk.ImageContent:
			msg.Images = append(msg.Images, provider.Image{Name: fmt.Sprintf("image %d", len(msg.Images)+1), Data: c.Data})
		case *sdk.AudioContent:
			text = append(text, fmt.Sprintf("[audio: %s, not heard]", c.MIMEType))
		case *sdk.ToolUseContent:
			args, _ := json.Marshal(c.Input)
			msg.ToolCalls = append(msg.ToolCalls, provider.ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		case *sdk.ToolResultContent:
			res := result(&sdk.CallToolResult{Content: c.Content, StructuredContent: c.StructuredContent, IsError: c.IsError})
			out = append(out, provider.Message{Role: "tool", Content: res.Content, ToolCallID: c.ToolUseID})
		default:
			return nil, fmt.Errorf("content of a kind lathe cannot send the model")
		}
	}
	msg.Content = strings.Join(text, "\n")
	if msg.Content != "" || len(msg.Images) > 0 || len(msg.ToolCalls) > 0 {
		out = append([]provider.Message{msg}, out...)
	}
	return out, nil
}

// samplingResult is the model's answer as the server takes it.
func samplingResult(r SamplingReply) *sdk.CreateMessageWithToolsResult {
	res := &sdk.CreateMessageWithToolsResult{Model: r.Model, Role: "assistant", StopReason: r.StopReason}
	if r.Text != "" || len(r.ToolCalls) == 0 {
		res.Content = append(res.Content, &sdk.TextContent{Text: r.Text})
	}
	for _, c := range r.ToolCalls {
		var input map[string]any
		_ = json.Unmarshal(c.Arguments, &input)
		res.Content = append(res.Content, &sdk.ToolUseContent{ID: c.ID, Name: c.Name, Input: input})
	}
	return res
}
