// Package provider is the port between lathe's agent and a model server: the
// messages, tool calls, chunks and metrics lathe speaks, and the interfaces a
// backend implements. A backend (provider/ollama) translates them to its wire.
package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"
)

// Message is one message of a conversation, as the agent keeps it and a
// backend sends it.
type Message struct {
	Role     string // "system", "user", "assistant" or "tool"
	Content  string
	Thinking string // the model's reasoning, sent back with its reply
	// Images are attached to a user message, sent as they are.
	Images    []Image
	ToolCalls []ToolCall // for role "assistant"
	// ToolName and ToolCallID identify the call a role "tool" message
	// answers.
	ToolName   string
	ToolCallID string
}

// Image is an image attached to a message: its encoded bytes (PNG or
// JPEG), sent byte for byte on every request that holds its message, so
// that a server's prompt cache holds.
type Image struct {
	// Name is what people and notes call it: the file's base name.
	Name string
	Data []byte
	// Width and Height are its size in pixels, as sent.
	Width, Height int
}

// Hash is the SHA-256 of the image's bytes, in hex: what it is stored by.
func (i Image) Hash() string {
	sum := sha256.Sum256(i.Data)
	return hex.EncodeToString(sum[:])
}

// Tokens estimates what the image takes of the context window: a token
// for each 28×28 patch (Qwen2.5-VL's reckoning; Gemma 3 takes a fixed 256,
// Llama 3.2 Vision about 1,600), at least 64.
func (i Image) Tokens() int {
	return max(64, (i.Width+27)/28*((i.Height+27)/28))
}

// ToolCall is one call the model made.
type ToolCall struct {
	ID    string // empty when the server sent none
	Index int    // the position the server gave it; not unique on every server
	Name  string
	// Arguments is a JSON object, its keys in the order the model wrote
	// them: it is sent back byte for byte.
	Arguments json.RawMessage
}

// Args returns the arguments as JSON text, "{}" for none.
func (c ToolCall) Args() string {
	if len(c.Arguments) == 0 {
		return "{}"
	}
	return string(c.Arguments)
}

// ToolSpec is a tool as offered to the model: its name, what it does, and
// its parameters as a JSON Schema object. It must be the same bytes on every
// request for a server's prompt cache to hold.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Request is one chat request.
type Request struct {
	// Model is the model as Model reported it: its name and the context
	// window chosen for it, which every request of a session repeats.
	Model    ModelInfo
	Messages []Message
	Tools    []ToolSpec
	// Think turns a thinking model's reasoning on or off; nil leaves the
	// model's default.
	Think *bool
	// Format is a JSON Schema the reply must follow; nil for free text.
	Format json.RawMessage
	// MaxTokens caps the reply's length; 0 leaves it to the model and the
	// window.
	MaxTokens int
	// MaxToolCalls is how many of the reply's tool calls are of use: a
	// provider may drop those past it as they come, counting them in the
	// Done chunk's DroppedCalls. 0: no limit.
	MaxToolCalls int
}

// Chunk is one piece of a streamed reply. The last one has Done set and
// carries the reply's metrics.
type Chunk struct {
	Content    string
	Thinking   string
	ToolCalls  []ToolCall
	Done       bool
	DoneReason string // "stop", "length"...; with Done
	Metrics    Metrics
	// DroppedCalls is how many tool calls past the request's MaxToolCalls
	// were dropped; with Done.
	DroppedCalls int
}

// Metrics are what a server reports of a reply. Every field is optional:
// zero means not reported.
type Metrics struct {
	// PromptTokens is the whole prompt's length in tokens, cached tokens
	// included; CachedTokens is the part the server did not re-read, when
	// it says so (CachedReported).
	PromptTokens     int
	CachedTokens     int
	CachedReported   bool
	CompletionTokens int
	TotalDuration    time.Duration
	LoadDuration     time.Duration
	PromptDuration   time.Duration
	EvalDuration     time.Duration
	// UntimedTokens are tokens of the reply EvalDuration does not cover:
	// llama.cpp's first, which comes from the prompt's last batch (it
	// times n−1 decode steps).
	UntimedTokens int
	// Truncated is set when the server counted fewer prompt tokens than
	// the request held: it cut the prompt silently, as some
	// OpenAI-compatible servers do when it outgrows their window.
	Truncated bool
	// Shifted is set when the reply ran past the server's window, the
	// server dropping the start of the context (the system prompt and
	// tools first) to go on: Ollama's /v1, llama.cpp's --context-shift.
	Shifted bool
}

// DecodeRate is tokens a second of writing the reply, as the server
// times it; 0 when not measured.
func (m Metrics) DecodeRate() float64 {
	n := m.CompletionTokens - m.UntimedTokens
	if secs := m.EvalDuration.Seconds(); secs > 0 && n > 0 {
		return float64(n) / secs
	}
	return 0
}

// ModelInfo is what lathe knows of a model, asked once per session.
type ModelInfo struct {
	Name string
	// Capabilities as the server lists them ("completion", "tools",
	// "thinking", "vision"...); nil when it lists none.
	Capabilities []string
	// ContextLength is the model's trained context length; 0 if unknown.
	ContextLength int
	// NumCtx is the context window lathe uses with the model: every
	// request asks for it, and the conversation is kept within it.
	NumCtx int
	// ServerWindow is the window the server runs the model with, when
	// the server fixes it (an OpenAI-compatible server: llama-server's
	// -c); 0 when lathe chooses it (Ollama's num_ctx).
	ServerWindow int
	// Larger says how to give the model a larger window on this server
	// ("start llama-server with a larger -c"), when options.num_ctx
	// cannot; empty for Ollama.
	Larger string
	// Remote is the host a remote (cloud) model runs on; empty for a
	// model the server runs itself.
	Remote string
	// Skipped are the models a default choice passed over because the
	// server could not describe them, each with why ("name: reason").
	Skipped []string
	// Notes are what the server said of itself that a person should know
	// (llama.cpp started without --jinja, a window lathe had to guess).
	Notes []string
	// KVBytesPerToken is what a token of context takes in the model's KV
	// cache at 16 bits, worked out from its architecture; 0 if unknown.
	KVBytesPerToken int64
	// ParameterSize ("8.2B") and Quantization ("Q4_K_M") as the server
	// says.
	ParameterSize, Quantization string
}

// Has reports whether the model lists capability c. A model that lists
// none gets the benefit of the doubt.
func (m ModelInfo) Has(c string) bool {
	return m.Capabilities == nil || slices.Contains(m.Capabilities, c)
}

// Lists reports whether the model lists capability c: no benefit of the
// doubt.
func (m ModelInfo) Lists(c string) bool { return slices.Contains(m.Capabilities, c) }

// ModelSummary is an installed model as a picker shows it.
type ModelSummary struct {
	Name          string
	ParameterSize string // "8.2B"
	Quantization  string // "Q4_K_M"
	Size          int64  // bytes on disk
	// Tools reports whether the model can call tools; Vision, whether it
	// can see images.
	Tools, Vision bool
	// Remote is the host a remote (cloud) model runs on; empty for a
	// local one.
	Remote string
	// Broken says why the server could not describe the model; empty
	// when it could.
	Broken string
}

// PullProgress is one step of a model download.
type PullProgress struct {
	Status    string // "pulling manifest", "pulling 7cd4618c1faf", "success"...
	Digest    string // the layer being downloaded, if any
	Total     int64  // the layer's size in bytes, if known
	Completed int64  // bytes of the layer received so far
}

// Provider is a model server. Its methods are safe for concurrent use.
type Provider interface {
	// Chat sends req and calls fn with each chunk of the reply, in order.
	// It returns an *Error for failures a person must see, a stream that
	// ends without its Done chunk included, or ctx's error.
	Chat(ctx context.Context, req *Request, fn func(Chunk) error) error
	// Model checks a model and chooses its context window; with name ""
	// it chooses the model too.
	Model(ctx context.Context, name string) (ModelInfo, error)
	// Models lists the installed models.
	Models(ctx context.Context) ([]ModelSummary, error)
}

// Loaded is a model the server holds in memory.
type Loaded struct {
	Name string
	// Size is the memory it takes, weights and KV cache; VRAM how much of
	// it is in GPU memory (less than Size: the rest runs on the CPU).
	Size, VRAM    int64
	ContextLength int // the window it was loaded with
	Expires       time.Time
}

// Server is what a backend can tell of its server, and ask of it, besides
// chatting: optional (a type assertion finds it).
type Server interface {
	// Version is the server's version.
	Version(ctx context.Context) (string, error)
	// Loaded lists the models in memory.
	Loaded(ctx context.Context) ([]Loaded, error)
	// Preload loads model with its window and keep-alive, so that the
	// first request does not wait for the load.
	Preload(ctx context.Context, model ModelInfo) error
}

// Puller downloads models.
type Puller interface {
	Pull(ctx context.Context, name string, progress func(PullProgress)) error
}

// SpecsSize is how many bytes specs take as JSON in the usual function-tool
// form, {"type":"function","function":{"name":...,"parameters":...}}: what
// they add to every request.
func SpecsSize(specs []ToolSpec) int { return len(SpecsJSON(specs)) }

// SpecsJSON is specs as JSON in the usual function-tool form (see
// SpecsSize).
func SpecsJSON(specs []ToolSpec) []byte {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type tool struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	list := make([]tool, len(specs))
	for i, s := range specs {
		list[i] = tool{"function", function(s)}
	}
	b, _ := json.Marshal(list) // specs hold valid JSON
	return b
}

// Embedder turns texts into vectors with an embedding model: optional (a
// type assertion finds it).
type Embedder interface {
	// Embed returns a vector of unit length for each input, in order.
	Embed(ctx context.Context, model string, inputs []string) ([][]float32, error)
	// EmbeddingModel is the installed model to embed with: name, checked
	// to be installed and able to embed, or with name "" the first of
	// the default embedding models installed. An *Error of kind
	// ErrNoModel says what to pull when there is none.
	EmbeddingModel(ctx context.Context, name string) (string, error)
}
