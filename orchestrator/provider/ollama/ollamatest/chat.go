package ollamatest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// chatCall is a chat request that passed the server's checks.
type chatCall struct {
	req        api.ChatRequest
	index      int // position in Server.requests
	model      entry
	numCtx     int
	numPredict int  // options.num_predict, -1 when unset
	numKeep    int  // options.num_keep, 4 when unset
	shift      bool // shift unset or true: the runner shifts a full context
	stream     bool
	density    float64 // bytes a token; 0: the fixed rule
	dense      float64 // bytes a token of digits and punctuation in prompts; 0: density
	prompt     string  // the rendered prompt, rendered once
	tokens     int     // the prompt's tokens at density
}

// httpError is an answer that rejects a request before any output.
type httpError struct {
	status      int
	msg         string
	contentType string
}

func (e *httpError) write(w http.ResponseWriter) {
	writeJSON(w, e.status, e.contentType, errorBody{e.msg})
}

func reject(status int, format string, args ...any) *httpError {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...), contentType: jsonUTF8}
}

// handleChat serves POST /api/chat in the order of the real ChatHandler.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, index int, body []byte) {
	c, herr := s.prepareChat(body)
	if herr != nil {
		herr.write(w)
		return
	}
	c.index = index
	if c.model.remote() && !unloading(c.req) {
		s.remoteChat(w, r, c)
		return
	}
	if len(c.req.Messages) == 0 {
		s.loadOnly(w, c)
		return
	}
	c.prompt = s.render(c.req, c.model)
	c.tokens = CountTokens(c.prompt, c.density, c.dense)
	images := imagesOf(c.req)
	s.requests.Update(c.index, func(r *Request) {
		r.PromptTokens = c.tokens
		r.Images, r.ImagesSeen = images, len(images) > 0 && c.model.has(CapVision)
	})
	if herr := checkPrompt(c); herr != nil {
		herr.write(w)
		return
	}
	reply, herr := s.takeReply(c)
	if herr != nil {
		herr.write(w)
		return
	}
	s.respond(w, r, c, reply)
}

// prepareChat decodes and checks a chat request up to loading the model.
func (s *Server) prepareChat(body []byte) (chatCall, *httpError) {
	var c chatCall
	if herr := decodeBody(body, &c.req); herr != nil {
		return c, herr
	}
	if c.req.TopLogprobs < 0 || c.req.TopLogprobs > 20 {
		return c, reject(http.StatusBadRequest, "top_logprobs must be between 0 and 20")
	}
	name := model.ParseName(c.req.Model)
	if !name.IsValid() {
		return c, reject(http.StatusBadRequest, "model is required")
	}
	e, ok := s.lookup(name)
	if !ok {
		return c, reject(http.StatusNotFound, "model '%s' not found", c.req.Model)
	}
	c.model = e
	c.stream = c.req.Stream == nil || *c.req.Stream
	if unloading(c.req) {
		return c, nil
	}
	if e.remote() {
		// ChatHandler proxies before any local check; the host reads
		// the options.
		predict, _ := c.req.Options["num_predict"].(float64)
		c.numPredict = int(predict)
		return c, nil
	}
	if herr := checkCapabilities(c.req, e); herr != nil {
		return c, herr
	}
	opts := api.Options{NumPredict: -1, NumKeep: 4} // api.DefaultOptions
	if err := opts.FromMap(c.req.Options); err != nil {
		return c, reject(http.StatusInternalServerError, "%s", err)
	}
	if e.LoadError != "" {
		return c, reject(http.StatusInternalServerError, "%s", e.LoadError)
	}
	c.numCtx = s.numCtx(opts.NumCtx, e)
	c.density, c.dense = s.density(e), e.DenseBytesPerToken
	c.numPredict = opts.NumPredict
	c.numKeep = opts.NumKeep
	c.shift = c.req.Shift == nil || *c.req.Shift
	return c, nil
}

// decodeBody decodes a request body as gin's ShouldBindJSON does: the first
// JSON value only, io.EOF for an empty body.
func decodeBody(body []byte, v any) *httpError {
	err := json.NewDecoder(bytes.NewReader(body)).Decode(v)
	switch {
	case errors.Is(err, io.EOF):
		return reject(http.StatusBadRequest, "missing request body")
	case err != nil:
		return reject(http.StatusBadRequest, "%s", err)
	}
	return nil
}

// imagesOf is the images of req's messages, in order.
func imagesOf(req api.ChatRequest) [][]byte {
	var out [][]byte
	for _, m := range req.Messages {
		for _, img := range m.Images {
			out = append(out, img)
		}
	}
	return out
}

func unloading(req api.ChatRequest) bool {
	return len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0
}

func checkCapabilities(req api.ChatRequest, e entry) *httpError {
	if !e.has(CapThinking) && req.Think != nil && req.Think.Bool() {
		return reject(http.StatusBadRequest, "%q does not support thinking", req.Model)
	}
	if !e.has(CapCompletion) {
		return reject(http.StatusBadRequest, "%q does not support chat", req.Model)
	}
	if len(req.Tools) > 0 && !e.has(CapTools) {
		return reject(http.StatusBadRequest, "%s does not support tools", e.name.String())
	}
	return nil
}

// checkFormat rejects a format the runner cannot turn into a grammar:
// anything but "json" or a JSON Schema object ("" and null mean none).
// The runner finds it when the completion starts, on the streaming path.
func checkFormat(f json.RawMessage) *httpError {
	switch strings.TrimSpace(string(f)) {
	case "", "null", `""`, `"json"`:
		return nil
	}
	var schema map[string]any
	if f[0] != '{' {
		return reject(http.StatusInternalServerError, "invalid format: %q; expected \"json\" or a valid JSON Schema object", f)
	}
	if json.Unmarshal(f, &schema) != nil {
		return reject(http.StatusInternalServerError, "invalid JSON schema in format")
	}
	return nil
}

// numCtx is the context the model runs with: the request's num_ctx or the
// server's default, capped at the trained context, at least 4.
func (s *Server) numCtx(requested int, e entry) int {
	n := requested
	if n <= 0 {
		n = s.cfg.defaultNumCtx
	}
	return max(4, min(n, e.ContextLength))
}

// checkPrompt rejects what the real server rejects once the prompt is
// rendered: a think level on a non-harmony model, a prompt longer than
// num_ctx with truncate:false, and a format that is not a grammar.
func checkPrompt(c chatCall) *httpError {
	if c.req.Think != nil && c.req.Think.IsString() && c.model.Architecture != "gptoss" {
		return reject(http.StatusBadRequest, "think value %q is not supported for this model", c.req.Think.String())
	}
	if c.req.Truncate != nil && !*c.req.Truncate && c.tokens > c.numCtx {
		return c.streamPathError(reject(http.StatusBadRequest, "the input length exceeds the context length"))
	}
	return c.streamPathError(checkFormat(c.req.Format))
}

// streamPathError gives herr, if any, the content type of an error the
// real server raises on the streaming path: plain application/json when c
// streams.
func (c chatCall) streamPathError(herr *httpError) *httpError {
	if herr != nil && c.stream {
		herr.contentType = jsonPlain
	}
	return herr
}

// takeReply pops the next scripted reply and resolves a Func reply.
func (s *Server) takeReply(c chatCall) (Reply, *httpError) {
	reply, err := s.replies.Take(c.req)
	if errors.Is(err, ErrNoReply) {
		s.t.Errorf("ollamatest: chat request %d (%s) arrived with no scripted reply left; %s",
			c.index, c.req.Model, lastMessage(c.req))
		return Reply{}, reject(http.StatusInternalServerError, errNoReply)
	}
	if err != nil {
		s.t.Errorf("ollamatest: chat request %d: Func reply: %v", c.index, err)
		return Reply{}, reject(http.StatusInternalServerError, "ollamatest: bad Func reply: %s", err)
	}
	return reply, nil
}

// lastMessage summarises a request's last message for failure messages.
func lastMessage(req api.ChatRequest) string {
	if len(req.Messages) == 0 {
		return "no messages"
	}
	m := req.Messages[len(req.Messages)-1]
	var calls []string
	for _, c := range m.ToolCalls {
		calls = append(calls, c.Function.Name)
	}
	desc := fmt.Sprintf("last of %d messages: role %s, content %q", len(req.Messages), m.Role, clip(m.Content, 80))
	if len(calls) > 0 {
		desc += ", tool calls " + strings.Join(calls, ", ")
	}
	return desc
}

func (s *Server) lookup(name model.Name) (entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := indexOf(s.models, name); i >= 0 {
		return s.models[i], true
	}
	return entry{}, false
}
