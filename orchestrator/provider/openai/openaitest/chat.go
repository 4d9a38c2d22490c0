package openaitest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// chatRequest is a chat request as the fake reads it.
type chatRequest struct {
	api          api.ChatRequest
	maxTokens    int
	includeUsage bool
}

// wireRequest is the part of a /v1/chat/completions body the fake reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools         api.Tools `json:"tools"`
	Stream        bool      `json:"stream"`
	MaxTokens     int       `json:"max_tokens"`
	MaxCompletion int       `json:"max_completion_tokens"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// translate reads a chat body into Ollama's form, which ollamatest's
// rendering and Func replies take.
func translate(body []byte) (chatRequest, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return chatRequest{}, err
	}
	req := chatRequest{maxTokens: max(w.MaxTokens, w.MaxCompletion)}
	req.includeUsage = w.StreamOptions != nil && w.StreamOptions.IncludeUsage
	req.api = api.ChatRequest{Model: w.Model, Tools: w.Tools, Stream: &w.Stream}
	for i, m := range w.Messages {
		out := api.Message{Role: m.Role, ToolCallID: m.ToolCallID}
		if err := content(m.Content, &out); err != nil {
			return req, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		for j, c := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
				return req, fmt.Errorf("messages[%d].tool_calls[%d].function.arguments: %w", i, j, err)
			}
			out.ToolCalls = append(out.ToolCalls, api.ToolCall{ID: c.ID,
				Function: api.ToolCallFunction{Index: j, Name: c.Function.Name, Arguments: args}})
		}
		req.api.Messages = append(req.api.Messages, out)
	}
	return req, nil
}

// content reads a message's content: a string, or parts of text and
// images (data URLs).
func content(raw json.RawMessage, m *api.Message) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		return json.Unmarshal(raw, &m.Content)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return err
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			m.Content += p.Text
		case "image_url":
			_, data, ok := strings.Cut(p.ImageURL.URL, ";base64,")
			img, err := base64.StdEncoding.DecodeString(data)
			if !ok || err != nil {
				return errors.New("image_url: want a base64 data URL")
			}
			m.Images = append(m.Images, img)
		default:
			return fmt.Errorf("unknown part type %q", p.Type)
		}
	}
	return nil
}

// renderPrompt is the prompt the fake's model reads.
func renderPrompt(req chatRequest) string { return ollamatest.RenderPrompt(req.api) }

// chat serves POST /v1/chat/completions.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, index int, body []byte) {
	req, err := translate(body)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error(), "invalid_request_error")
		return
	}
	m, ok := s.model(req.api.Model)
	if !ok {
		s.fail(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.api.Model), "NotFoundError")
		return
	}
	if s.noJinja && len(req.api.Tools) > 0 {
		s.fail(w, http.StatusInternalServerError, "tools param requires --jinja flag", "server_error")
		return
	}
	prompt := renderPrompt(req)
	tokens := ollamatest.CountTokens(prompt, m.BytesPerToken, m.DenseBytesPerToken)
	if tokens >= m.Window && s.kind != LMStudio && s.kind != Ollama {
		s.requests.Update(index, func(r *Request) { r.PromptTokens = tokens })
		s.overflow(w, tokens, m.Window)
		return
	}
	reported, cached := tokens, 0
	s.mu.Lock()
	free := m.Window - s.occupied
	if s.kind == LlamaCpp && s.occupied > 0 && tokens >= free {
		s.mu.Unlock()
		s.requests.Update(index, func(r *Request) { r.PromptTokens = tokens })
		s.fail(w, http.StatusInternalServerError, KVFull, "server_error")
		return
	}
	if s.kind == Ollama {
		s.loaded[m.Name] = true
	}
	switch {
	case tokens >= m.Window && s.kind == Ollama:
		// Ollama's truncation: the newest messages that fit, the system
		// prompt and tools gone; the count is the window exactly.
		reported, s.last = m.Window, ""
	case tokens >= m.Window:
		// LM Studio's default policy: keep the start, drop the middle,
		// say nothing. The count is of what was kept.
		reported, s.last = m.Window/2, ""
	default:
		common := prompt[:commonPrefix(prompt, s.last)]
		cached = min(ollamatest.WholeTokens(common, m.BytesPerToken, m.DenseBytesPerToken), tokens-1)
		s.last = prompt
	}
	s.mu.Unlock()
	s.requests.Update(index, func(r *Request) {
		r.PromptTokens, r.CachedTokens, r.Truncated = reported, cached, s.kind == Ollama && tokens >= m.Window
	})
	reply, ok := s.takeReply(req)
	if !ok {
		s.fail(w, http.StatusInternalServerError, "openaitest: no scripted reply left", "server_error")
		return
	}
	if reply.Status != 0 {
		msg := reply.Error
		if msg == "" {
			msg = strings.ToLower(http.StatusText(reply.Status))
		}
		s.fail(w, reply.Status, msg, "server_error")
		return
	}
	room := m.Window - reported
	if s.kind == Ollama {
		room = 10 * m.Window // num_predict unset: the context shifts as the reply fills it
	}
	if req.maxTokens > 0 {
		room = min(room, req.maxTokens)
	}
	if s.kind == LlamaCpp && s.occupied > 0 && free-reported < room && reply.ErrorLine == "" {
		// The shared cache fills before the reply's own window does: the
		// reply stops there with an error event, and no finish_reason.
		room = free - reported
		events, _, finish := s.plan(reply, room)
		if finish == "length" {
			reply.ErrorLine, reply.AfterChunks = KVFull, len(events)
		}
	}
	s.stream(w, r, req, reply, usage{prompt: reported, cached: cached, index: index}, room)
}

// overflow answers a prompt too long for the window, as the kind does.
func (s *Server) overflow(w http.ResponseWriter, tokens, window int) {
	switch s.kind {
	case LlamaCpp:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400,
			"message": fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", tokens, window),
			"type":    "exceed_context_size_error", "n_prompt_tokens": tokens, "n_ctx": window}})
	default:
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("This model's maximum context length is %d tokens. However, your request has %d input tokens. "+
			"Please reduce the length of the input messages.", window, tokens), "BadRequestError")
	}
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// takeReply pops the next scripted reply, or asks the fallback.
func (s *Server) takeReply(req chatRequest) (ollamatest.Reply, bool) {
	reply, err := s.replies.Take(req.api)
	switch {
	case errors.Is(err, ollamatest.ErrNoReply):
		s.t.Errorf("openaitest: a chat request arrived with no scripted reply left (%d messages)", len(req.api.Messages))
		return reply, false
	case err != nil:
		s.t.Errorf("openaitest: bad Func reply: %v", err)
		return reply, false
	}
	return reply, true
}
