// Package openaitest runs a scripted fake OpenAI-compatible server on
// loopback, the sibling of ollamatest: the same scripting ([ollamatest.Reply],
// Script, Respond), answered the way llama.cpp's llama-server, vLLM, LM
// Studio or a plain OpenAI-compatible server answers, so that lathe's loop
// can be tested on both backends.
//
// It serves POST /v1/chat/completions (streamed as server-sent events:
// chat.completion.chunk objects, then "data: [DONE]"), GET /v1/models, and
// by kind llama.cpp's GET /props and POST /apply-template, LM Studio's GET
// /api/v0/models. The chunk shapes follow each server's source:
//
//   - llama.cpp (tools/server): a first delta {"role":"assistant","content":null};
//     text as "content", reasoning as "reasoning_content"; a tool call as a
//     delta with index, id, type and the name, then deltas of index and
//     argument fragments; a last choice with "delta":{} and the
//     finish_reason; with stream_options.include_usage, a chunk with empty
//     choices and the usage (prompt_tokens_details.cached_tokens), "timings"
//     on the last chunk; a prompt as long as the window fails with 400
//     exceed_context_size_error; a request with tools to a server started
//     without --jinja fails with 500 "tools param requires --jinja flag".
//   - vLLM (entrypoints/openai): a first delta {"role":"assistant","content":""};
//     reasoning as "reasoning"; a call's first delta without arguments; the
//     finish chunk's delta {"content":""} with "stop_reason"; the usage
//     chunk with prompt_tokens_details null; max_model_len in /v1/models; a
//     prompt too long fails with 400 "This model's maximum context length
//     is ...".
//   - LM Studio: /api/v0/models with type, state, max_context_length and
//     loaded_context_length; a prompt too long for the loaded window is cut
//     silently (its default context overflow policy), the usage then
//     counting the tokens kept.
//   - Plain: none of the extras; errors as {"object":"error","message":...}
//     at the top, as older vLLM and other servers write them.
//
// A Reply's Calls says how its calls stream: CallsSeparate (the default)
// one call after the other, a delta for the name then fragments of the
// arguments; CallsTogether the calls' fragments interleaved by index, as a
// server decoding parallel calls sends them; CallsOnDone every call whole,
// in one delta, on the chunk with the finish_reason. CallFormatHarmony
// repeats the id and the name on every delta; CallFormatLegacy sends no id.
// A DoneReason of NoFinish ends the stream with [DONE] but no
// finish_reason (a server or proxy that lost the end).
//
// Prompts are measured as ollamatest measures them (RenderPrompt, 4 bytes a
// token); the prompt cache is the common prefix with the previous request,
// reported as cached_tokens.
package openaitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider/internal/requestlog"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

// Kind is the server the fake copies.
type Kind string

const (
	LlamaCpp Kind = "llama.cpp"
	VLLM     Kind = "vllm"
	LMStudio Kind = "lmstudio"
	Plain    Kind = "plain"
	// Ollama is Ollama's OpenAI-compatible API, /v1 on an Ollama server
	// (see ollama.go).
	Ollama Kind = "ollama"
)

// NoFinish, as a Reply's DoneReason, ends the stream without a
// finish_reason.
const NoFinish = "no_finish"

// Model is a served model.
type Model struct {
	Name string
	// Window is the context the server runs it with (llama.cpp's n_ctx per
	// slot, vLLM's max_model_len, LM Studio's loaded context); 4096 when
	// zero.
	Window int
	// Trained is its trained context length (LM Studio's
	// max_context_length, llama.cpp's n_ctx_train); Window when zero.
	Trained int
	// Type is LM Studio's "llm" (the default), "vlm" or "embeddings".
	Type string
	// NotLoaded makes LM Studio list it as not loaded.
	NotLoaded bool
	// Capabilities are what Ollama's /api/show lists (kind Ollama);
	// nil means completion and tools.
	Capabilities []string
	// NumCtx is the num_ctx its Modelfile sets (kind Ollama); 0 for none.
	NumCtx int
	// BytesPerToken and DenseBytesPerToken are its tokenizer's densities
	// (see ollamatest.CountTokens); zero is the fixed rule, 4 bytes a
	// token.
	BytesPerToken, DenseBytesPerToken float64
}

// Server is a running fake server. Its methods are safe for concurrent use.
type Server struct {
	t       testing.TB
	ts      *httptest.Server
	kind    Kind
	models  []Model
	noJinja bool
	apiKey  string
	closing chan struct{}

	replies  ollamatest.Replies
	requests requestlog.Log[Request]

	mu       sync.Mutex
	last     string // the previous chat request's rendered prompt
	ids      int
	occupied int             // KV cells other requests hold (llama.cpp's shared cache)
	loaded   map[string]bool // the models Ollama holds (kind Ollama)
}

// Request is one HTTP request the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	// For a chat request that was answered, or refused for its length:
	// its prompt's tokens, and how many the prompt cache held.
	PromptTokens, CachedTokens int
	// Truncated reports that Ollama cut the prompt to its window,
	// silently; Shifts how many times its reply filled the window and
	// the context was shifted (kind Ollama).
	Truncated bool
	Shifts    int
}

// Option configures New.
type Option func(*Server)

// WithModels sets the served models (default: one, "qwen3:8b", window 4096).
func WithModels(models ...Model) Option { return func(s *Server) { s.models = models } }

// WithoutJinja runs llama.cpp as started without --jinja.
func WithoutJinja() Option { return func(s *Server) { s.noJinja = true } }

// WithAPIKey makes every request but llama.cpp's /health need the key.
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// New starts a fake server of kind on loopback. Its cleanup fails the test
// when scripted replies were left unused.
func New(t testing.TB, kind Kind, opts ...Option) *Server {
	t.Helper()
	s := &Server{t: t, kind: kind, models: []Model{{Name: "qwen3:8b"}}, closing: make(chan struct{}), loaded: map[string]bool{}}
	for _, o := range opts {
		o(s)
	}
	for i := range s.models {
		if s.models[i].Window == 0 {
			s.models[i].Window = 4096
		}
		if s.models[i].Trained == 0 {
			s.models[i].Trained = s.models[i].Window
		}
	}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.close)
	return s
}

// Occupy makes llama.cpp's KV cache hold n cells for other requests, as
// its default slots (-np 4, one unified cache of -c cells, each slot told
// it has all of it) do while another client's request runs: a request
// that needs more than what is left fails with "Context size has been
// exceeded.", a 500 before any output for its prompt, an error event in
// the stream for its reply. /props still says n_ctx is the whole window.
func (s *Server) Occupy(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.occupied = n
}

// KVFull is llama.cpp's message for a KV cache with no room left.
const KVFull = "Context size has been exceeded."

// URL is the API root, what base_url holds: "http://127.0.0.1:PORT/v1".
func (s *Server) URL() string { return s.ts.URL + "/v1" }

// Script queues replies; each answered chat request takes the first.
func (s *Server) Script(replies ...ollamatest.Reply) {
	s.t.Helper()
	for i, r := range replies {
		if err := r.Validate(); err != nil {
			s.t.Errorf("openaitest: Script reply %d: %v", i, err)
			return
		}
	}
	s.replies.Add(replies...)
}

// Respond makes fn answer the chat requests that find no scripted reply.
func (s *Server) Respond(fn func(api.ChatRequest) ollamatest.Reply) {
	s.replies.Respond(fn)
}

// Requests returns every request received, in order.
func (s *Server) Requests() []Request {
	return s.requests.All(func(r Request) Request {
		r.Header, r.Body = r.Header.Clone(), bytes.Clone(r.Body)
		return r
	})
}

// Bodies returns the raw body of every chat request, in order.
func (s *Server) Bodies() [][]byte {
	var out [][]byte
	for _, r := range s.Requests() {
		if r.Path == "/v1/chat/completions" {
			out = append(out, r.Body)
		}
	}
	return out
}

// ChatRequests returns every chat request translated into Ollama's form
// (messages, tool calls, tool results, tools), for assertions shared with
// ollamatest.
func (s *Server) ChatRequests() []api.ChatRequest {
	var out []api.ChatRequest
	for _, b := range s.Bodies() {
		if req, err := translate(b); err == nil {
			out = append(out, req.api)
		}
	}
	return out
}

func (s *Server) close() {
	close(s.closing)
	s.ts.Close()
	if left := len(s.replies.Left()); left > 0 {
		s.t.Errorf("openaitest: %d scripted replies left unused", left)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	index := s.requests.Add(Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	if s.apiKey != "" && r.URL.Path != "/health" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
		s.fail(w, http.StatusUnauthorized, "Invalid API Key", "authentication_error")
		return
	}
	if s.kind == Ollama && s.ollamaRoutes(w, r, body) {
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.listModels(w)
	case r.Method == http.MethodGet && r.URL.Path == "/props" && s.kind == LlamaCpp:
		s.props(w)
	case r.Method == http.MethodPost && r.URL.Path == "/apply-template" && s.kind == LlamaCpp:
		s.applyTemplate(w, body)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v0/models" && s.kind == LMStudio:
		s.lmStudioModels(w)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r, index, body)
	default:
		s.fail(w, http.StatusNotFound, "File Not Found", "not_found_error")
	}
}

// fail writes an error answer in the kind's shape.
func (s *Server) fail(w http.ResponseWriter, status int, msg, typ string) {
	var body any
	switch s.kind {
	case Plain:
		body = map[string]any{"object": "error", "message": msg, "type": typ, "param": nil, "code": status}
	case LMStudio:
		body = map[string]any{"error": msg}
	default:
		body = map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}}
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) model(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modelLocked(name)
}

func (s *Server) modelLocked(name string) (Model, bool) {
	for _, m := range s.models {
		if m.Name == name || s.kind == Ollama && strings.EqualFold(tagged(m.Name), tagged(name)) {
			return m, true
		}
	}
	if s.kind == LlamaCpp && len(s.models) > 0 {
		return s.models[0], true // llama-server answers to any name
	}
	return Model{}, false
}
