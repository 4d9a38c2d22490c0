package ollamatest

import (
	"cmp"
	"fmt"
	"net/http"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// handlePull serves POST /api/pull like the default (non-"client2") handler:
// progress lines, then the model is installed. A model that is neither
// installed nor pullable fails after "pulling manifest".
func (s *Server) handlePull(w http.ResponseWriter, _ *http.Request, _ int, body []byte) {
	var req api.PullRequest
	if herr := decodeBody(body, &req); herr != nil {
		herr.write(w)
		return
	}
	//lint:ignore SA1019 Ollama still reads the name older clients send
	name := model.ParseName(cmp.Or(req.Model, req.Name))
	if !name.IsValid() {
		writeError(w, http.StatusBadRequest, "invalid model name")
		return
	}
	e, installed, ok := s.pullSource(name)
	stream := req.Stream == nil || *req.Stream
	const missing = "pull model manifest: file does not exist"
	switch {
	case !ok && stream:
		lw := &lineWriter{w: w}
		_ = lw.line(api.ProgressResponse{Status: "pulling manifest"})
		_ = lw.line(errorBody{missing})
	case !ok:
		writeJSON(w, http.StatusInternalServerError, jsonPlain, errorBody{missing})
	case stream:
		s.streamPull(w, e, installed)
	default:
		s.install(e)
		writeJSON(w, http.StatusOK, jsonPlain, api.ProgressResponse{Status: "success"})
	}
}

// pullSource finds what name would pull: an installed model (pulled again)
// or a pullable one.
func (s *Server) pullSource(name model.Name) (e entry, installed, ok bool) {
	if e, ok := s.lookup(name); ok {
		return e, true, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := indexOf(s.pullable, name); i >= 0 {
		return s.pullable[i], false, true
	}
	return entry{}, false, false
}

func (s *Server) streamPull(w http.ResponseWriter, e entry, installed bool) {
	lw := &lineWriter{w: w}
	lines := []api.ProgressResponse{{Status: "pulling manifest"}}
	for _, l := range e.layers() {
		status := fmt.Sprintf("pulling %s", l.digest[7:19])
		steps := []int64{0, l.size / 3, l.size}
		if installed {
			steps = []int64{l.size} // blobs already there
		}
		for _, done := range steps {
			lines = append(lines, api.ProgressResponse{Status: status, Digest: l.digest, Total: l.size, Completed: done})
		}
	}
	lines = append(lines, api.ProgressResponse{Status: "verifying sha256 digest"}, api.ProgressResponse{Status: "writing manifest"})
	for _, l := range lines {
		if lw.line(l) != nil {
			return
		}
	}
	s.install(e)
	_ = lw.line(api.ProgressResponse{Status: "success"})
}

type layer struct {
	digest string
	size   int64
}

// layers are the model's blobs: weights, template, license, params, config.
func (e entry) layers() []layer {
	sizes := []int64{max(e.Size-8_947, 1), 1_723, 6_242, 77, 905}
	out := make([]layer, len(sizes))
	for i, size := range sizes {
		out[i] = layer{digest: "sha256:" + digestOf(fmt.Sprintf("%s#%d", e.name, i)), size: size}
	}
	return out
}

// install adds e to the installed models (replacing one with its name),
// modified now.
func (s *Server) install(e entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.modified = s.clock.In(localZone)
	if i := indexOf(s.models, e.name); i >= 0 {
		s.models[i] = e
		return
	}
	s.models = append(s.models, e)
}
