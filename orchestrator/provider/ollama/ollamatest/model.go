package ollamatest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/types/model"
)

// Capabilities a [Model] can have, as /api/show reports them.
const (
	CapCompletion = "completion"
	CapTools      = "tools"
	CapThinking   = "thinking"
	CapVision     = "vision"
	CapEmbedding  = "embedding"
	CapInsert     = "insert"
)

// Defaults used when a [Model] leaves a field zero.
const (
	DefaultContextLength = 32768
	DefaultSize          = 4_920_753_328
)

// Model is one model the fake server has installed (or can pull).
type Model struct {
	// Name is the model's name as Ollama shows it: "qwen3:8b". A name
	// without a tag means "name:latest". Lookups are case-insensitive.
	Name string
	// Capabilities are the model's capabilities (see the Cap constants).
	// Nil means completion and tools, except for a remote model, whose
	// capabilities come only from its config: nil means none, and
	// /api/show leaves out the "capabilities" key.
	Capabilities []string
	// LegacyShow makes /api/show leave out the "capabilities" key, as
	// servers before 2025 did. Chat requests are still checked against
	// Capabilities.
	LegacyShow bool
	// ContextLength is the trained context, reported in /api/show as
	// model_info["<arch>.context_length"]; it caps num_ctx.
	// Zero means DefaultContextLength (none for a remote model).
	ContextLength int
	// Architecture is model_info["general.architecture"] and the family in
	// details. Empty means one derived from the name ("qwen3" for
	// "qwen3:8b", "gptoss" for "gpt-oss:20b", "llama" for "llama3.2"),
	// except for a remote model: none, and then an empty model_info.
	Architecture string
	// Size is the size in bytes reported by /api/tags. Zero means
	// DefaultSize, or for a remote model the size of its only blob, the
	// config (about 200 bytes).
	Size int64
	// ModifiedAt is when the model was last created or pulled, as
	// /api/tags and /api/show report it (in the server's local time).
	// /api/tags sorts by it to the second, newest first, and lists models
	// modified in the same second in a random order on every call. Zero
	// means the model's place in WithModels: the first one newest, each
	// next one an hour older.
	ModifiedAt time.Time
	// LoadDuration is the load_duration of a cold load of this model (the
	// first request, one with another num_ctx, or one after keep_alive ran
	// out). Zero means 539.66 ms, a recorded cold load of gemma3:1b; an
	// 8B model from disk takes seconds. A warm request takes 38.47 ms.
	LoadDuration time.Duration
	// LoadedSize is size in /api/ps while the model is loaded: the memory
	// it takes, weights and KV cache. Zero means Size.
	LoadedSize int64
	// LoadedVRAM is size_vram in /api/ps: how much of LoadedSize sits in
	// GPU memory. Zero means all of it; less than LoadedSize is a model
	// spilled partly to the CPU; negative means none, a CPU-only load.
	LoadedVRAM int64
	// RemoteHost makes the model a remote (cloud) model, as /api/create
	// with "from" and "remote_host" makes a stub and "ollama pull
	// NAME-cloud" installs one: the URL of the host that runs it, as the
	// server stores it ("https://ollama.com:443"). /api/tags lists it like
	// a local model, with remote_model and remote_host; /api/show has
	// remote_host and remote_model, no tensors, and for a stub (no
	// Capabilities, no Architecture) no "capabilities" key and an empty
	// model_info. Chat requests skip the local checks and go to the host:
	// each line comes back with remote_model and remote_host, the done line
	// with only total_duration, prompt_eval_count and eval_count, and no
	// model is loaded (see WithoutCloud, WithCloudSignedOut, WithRemotes
	// for the ways it fails).
	RemoteHost string
	// RemoteModel is the model's name on RemoteHost ("gpt-oss:120b");
	// empty means Name.
	RemoteModel string
	// ThinkSwitch makes the model's chat template depend on think, as
	// Ollama's qwen3 template fixture (thinking/template_test.go) does: the
	// system block ends with "\n/think" or "\n/no_think" by the resolved
	// think value, a thinking model's unset think meaning true (as
	// ChatHandler sets it). A client that alternates think values (unset
	// on main requests, false on side requests) then changes the prompt
	// right after the system prompt and misses the prompt cache from there
	// on, on both switches. Without the thinking capability it does
	// nothing.
	ThinkSwitch bool
	// EmbeddingLength is the length of the vectors POST /api/embed returns
	// for the model, and its "<arch>.embedding_length" in /api/show. Zero
	// means DefaultEmbeddingLength for a model with the embedding
	// capability, 4096 for another.
	EmbeddingLength int
	// BytesPerToken is the density of this model's tokenizer, replacing
	// the server's (see WithBytesPerToken) for it. Zero means the
	// server's.
	BytesPerToken float64
	// DenseBytesPerToken, when set, is the density of the digits and
	// punctuation in this model's prompts (see CountTokens): text made of
	// them, a listing of numbered files, counts more tokens than its
	// bytes at BytesPerToken say. Zero counts them as the rest.
	DenseBytesPerToken float64

	// ShowStatus makes POST /api/show of this model fail with this HTTP
	// status (400 to 599) and the body {"error":ShowError}, while /api/tags
	// still lists it and the other models answer normally. A real server
	// answers 500 `tensor "output.weight" offset+size (943008) exceeds file
	// size (761168)` for a model whose blob is truncated, and 403 "ollama
	// cloud is disabled: remote model details are unavailable" for a cloud
	// model under OLLAMA_NO_CLOUD=1 (see also WithoutCloud).
	ShowStatus int
	// ShowError is the message sent with ShowStatus; empty means the status
	// text.
	ShowError string
	// LoadError makes every chat request for this model, a load without
	// messages included, fail with HTTP 500 and {"error":LoadError} once it
	// passed the capability and option checks, as the scheduler fails to
	// load a model whose blob is corrupt (with the same text /api/show
	// gives). It consumes no scripted reply.
	LoadError string
}

// DefaultModel is the model installed when [WithModels] is not used: qwen3:8b
// with completion, tools and thinking and a 40960-token trained context.
func DefaultModel() Model {
	return Model{
		Name:          "qwen3:8b",
		Capabilities:  []string{CapCompletion, CapTools, CapThinking},
		ContextLength: 40960,
		Architecture:  "qwen3",
		Size:          5_225_388_164,
	}
}

// entry is an installed model with its defaults filled in.
type entry struct {
	Model
	name     model.Name
	modified time.Time
}

func newEntry(m Model, modified time.Time) (entry, error) {
	name := model.ParseName(m.Name)
	if !name.IsValid() {
		return entry{}, fmt.Errorf("ollamatest: invalid model name %q", m.Name)
	}
	if err := m.validate(); err != nil {
		return entry{}, err
	}
	m.Name = name.DisplayShortest()
	if m.RemoteHost != "" {
		m.RemoteModel = cmp.Or(m.RemoteModel, m.Name)
		m.Size = cmp.Or(m.Size, configSize(m))
		return entry{Model: m, name: name, modified: modified}, nil
	}
	if m.Capabilities == nil {
		m.Capabilities = []string{CapCompletion, CapTools}
	}
	if m.ContextLength == 0 {
		m.ContextLength = DefaultContextLength
	}
	if m.Architecture == "" {
		m.Architecture = guessArchitecture(name.Model)
	}
	if m.Size == 0 {
		m.Size = DefaultSize
	}
	return entry{Model: m, name: name, modified: modified}, nil
}

// loadedSizes are size and size_vram in /api/ps.
func (e entry) loadedSizes() (size, vram int64) {
	size = cmp.Or(e.LoadedSize, e.Size)
	switch {
	case e.LoadedVRAM < 0:
		return size, 0
	case e.LoadedVRAM == 0:
		return size, size
	}
	return size, e.LoadedVRAM
}

func (m Model) validate() error {
	switch {
	case m.BytesPerToken < 0 || math.IsNaN(m.BytesPerToken) || math.IsInf(m.BytesPerToken, 0):
		return fmt.Errorf("ollamatest: model %q: BytesPerToken %v: want a positive number, or 0", m.Name, m.BytesPerToken)
	case m.DenseBytesPerToken < 0 || math.IsNaN(m.DenseBytesPerToken) || math.IsInf(m.DenseBytesPerToken, 0):
		return fmt.Errorf("ollamatest: model %q: DenseBytesPerToken %v: want a positive number, or 0", m.Name, m.DenseBytesPerToken)
	case m.ShowStatus != 0 && (m.ShowStatus < 400 || m.ShowStatus > 599):
		return fmt.Errorf("ollamatest: model %q: ShowStatus %d: want 400 to 599", m.Name, m.ShowStatus)
	case m.ShowError != "" && m.ShowStatus == 0:
		return fmt.Errorf("ollamatest: model %q: ShowError needs a ShowStatus", m.Name)
	case m.RemoteModel != "" && m.RemoteHost == "":
		return fmt.Errorf("ollamatest: model %q: RemoteModel needs a RemoteHost", m.Name)
	}
	if m.RemoteHost != "" {
		if u, err := url.Parse(m.RemoteHost); err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("ollamatest: model %q: RemoteHost %q: want a URL like https://ollama.com:443", m.Name, m.RemoteHost)
		}
	}
	return nil
}

// showError is the message of a failing /api/show.
func (e entry) showError() string {
	if e.ShowError != "" {
		return e.ShowError
	}
	return strings.ToLower(http.StatusText(e.ShowStatus))
}

func (e entry) has(capability string) bool {
	return slices.Contains(e.Capabilities, capability)
}

// indexOf is the position in es of the model called name, compared as
// Ollama compares names (case-insensitively), or -1.
func indexOf(es []entry, name model.Name) int {
	return slices.IndexFunc(es, func(e entry) bool { return e.name.EqualFold(name) })
}

// digest is a stable sha256 digest standing for the model's manifest.
func (e entry) digest() string {
	return digestOf(e.name.String())
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// parameterSize derives details.parameter_size from a tag like "8b".
func (e entry) parameterSize() string {
	tag := strings.ToUpper(e.name.Tag)
	if tag == "" || !strings.ContainsAny(tag[len(tag)-1:], "BM") {
		return "7.6B"
	}
	if strings.TrimLeft(tag[:len(tag)-1], "0123456789.") != "" {
		return "7.6B"
	}
	return tag
}

// guessArchitecture maps a model's base name to the architecture a real
// server reports for it.
func guessArchitecture(base string) string {
	base = strings.ToLower(base)
	known := []struct{ prefix, arch string }{
		{"gpt-oss", "gptoss"},
		{"qwen2.5", "qwen2"},
		{"llama", "llama"},
		{"mistral", "llama"},
		{"codellama", "llama"},
	}
	for _, k := range known {
		if strings.HasPrefix(base, k.prefix) {
			return k.arch
		}
	}
	end := strings.IndexFunc(base, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if end > 0 {
		return base[:end]
	}
	return base
}
