package ollamatest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// DefaultEmbeddingLength is the length of the vectors an embedding model
// returns when its Model sets no EmbeddingLength: nomic-embed-text's and
// embeddinggemma's.
const DefaultEmbeddingLength = 768

// EmbeddingModel is an embedding model as Ollama lists it: embeddinggemma,
// with the embedding capability only, a 2,048-token context and 768-wide
// vectors.
func EmbeddingModel() Model {
	return Model{
		Name:          "embeddinggemma:latest",
		Capabilities:  []string{CapEmbedding},
		ContextLength: 2048,
		Architecture:  "gemma3",
		Size:          621_875_417,
	}
}

// handleEmbed answers POST /api/embed as EmbedHandler does: one JSON
// object with a vector of unit length for each input, in order. The
// vectors are deterministic and mean something: each word of the input
// (lower-cased letters and digits, identifiers split where their case
// changes) adds ±1 to a coordinate chosen by its hash, so that texts
// sharing words point the same way and the cosine of two vectors grows
// with the words they share. An input with no word gets the first axis.
//
// As on a real server: an input that is neither a string nor a list of
// strings is a 400 "invalid input type"; an unknown model a 404 with the
// scheduler's wording; an input longer than the model's context with
// truncate false a 400; dimensions cuts the vectors to that length
// (normalised again). The model is loaded as a chat request loads one (it
// shows in /api/ps) for keep_alive.
func (s *Server) handleEmbed(w http.ResponseWriter, _ *http.Request, _ int, body []byte) {
	var req api.EmbedRequest
	if herr := decodeBody(body, &req); herr != nil {
		herr.write(w)
		return
	}
	name := model.ParseName(req.Model)
	if !name.IsValid() {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	inputs, ok := embedInputs(req.Input)
	if !ok {
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	e, found := s.lookup(name)
	if !found {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if e.LoadError != "" {
		writeError(w, http.StatusInternalServerError, e.LoadError)
		return
	}
	if len(inputs) == 0 {
		writeJSON(w, http.StatusOK, jsonUTF8, api.EmbedResponse{Model: req.Model, Embeddings: [][]float32{}})
		return
	}
	density := s.density(e)
	tokens := 0
	for _, in := range inputs {
		n := tokensAt(len(in), density)
		if req.Truncate != nil && !*req.Truncate && n > e.ContextLength {
			writeError(w, http.StatusBadRequest, "the input length exceeds the context length")
			return
		}
		tokens += min(n, e.ContextLength)
	}
	dims := e.embeddingLength()
	if req.Dimensions > 0 {
		dims = min(dims, req.Dimensions)
	}
	out := api.EmbedResponse{Model: req.Model, PromptEvalCount: tokens}
	for _, in := range inputs {
		out.Embeddings = append(out.Embeddings, Embed(in, e.embeddingLength())[:dims])
	}
	if dims < e.embeddingLength() {
		for _, v := range out.Embeddings {
			if normalize(v) == 0 {
				v[0] = 1
			}
		}
	}
	s.mu.Lock()
	r, load := s.loadLocked(chatCall{model: e, numCtx: e.ContextLength, req: api.ChatRequest{KeepAlive: req.KeepAlive}})
	r.expires = expiry(s.clock, req.KeepAlive)
	s.mu.Unlock()
	out.LoadDuration = load
	out.TotalDuration = load + time.Duration(tokens)*time.Millisecond/10
	writeJSON(w, http.StatusOK, jsonUTF8, out)
}

// embeddingLength is the length of e's vectors: EmbeddingLength, else
// DefaultEmbeddingLength for an embedding model and 4096 (what /api/show
// says) for another.
func (e entry) embeddingLength() int {
	if !e.has(CapEmbedding) {
		return cmp.Or(e.EmbeddingLength, 4096)
	}
	return cmp.Or(e.EmbeddingLength, DefaultEmbeddingLength)
}

// embedInputs reads input: a string or a list of strings.
func embedInputs(input any) ([]string, bool) {
	switch in := input.(type) {
	case nil:
		return nil, true
	case string:
		if in == "" {
			return nil, true
		}
		return []string{in}, true
	case []any:
		out := make([]string, 0, len(in))
		for _, v := range in {
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// Embed is the vector the fake server returns for text from a model with
// dims-wide vectors (see handleEmbed), for tests that work out what a
// search should find.
func Embed(text string, dims int) []float32 {
	v := make([]float32, dims)
	for _, w := range EmbedWords(text) {
		h := fnv.New64a()
		h.Write([]byte(w))
		sum := h.Sum64()
		sign := float32(1)
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(dims)] += sign
	}
	if normalize(v) == 0 {
		v[0] = 1
	}
	return v
}

// EmbedWords are the words the fake's embeddings are made of: runs of
// letters and digits, lower-cased, identifiers split where a lower-case
// letter meets an upper-case one ("parseConfig" is "parse" and "config").
func EmbedWords(text string) []string {
	var words []string
	var b strings.Builder
	prev := rune(0)
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			b.Reset()
		}
	}
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	flush()
	return words
}

// normalize scales v to unit length and returns its former length.
func normalize(v []float32) float64 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	n := math.Sqrt(sum)
	if n == 0 {
		return 0
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return n
}

// EmbedRequests returns the decoded body of every POST /api/embed, in
// order.
func (s *Server) EmbedRequests() []api.EmbedRequest {
	var out []api.EmbedRequest
	for _, r := range s.Requests() {
		if r.Method != http.MethodPost || r.Path != "/api/embed" {
			continue
		}
		var req api.EmbedRequest
		if json.Unmarshal(r.Body, &req) == nil {
			out = append(out, req)
		}
	}
	return out
}
