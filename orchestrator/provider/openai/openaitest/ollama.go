package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Ollama's OpenAI-compatible API (/v1 on an Ollama server, kind Ollama),
// as v0.17.4 answers: /v1/models lists the models tagged
// ("onetool:latest", owned by "library") with no window; the same host
// answers Ollama's own /api/version, /api/show (capabilities, the trained
// context length, the Modelfile's parameters) and /api/ps (the loaded
// models, with the window each runs with: the server's default num_ctx,
// which /v1 cannot change). A chat request runs with that window and
// neither truncate:false nor shift:false: a prompt longer than the window
// is cut to fit it, silently (the usage counts the window exactly, the
// system prompt and tools gone), and a reply that fills the window goes
// on, the context shifted (up to num_predict, ten windows when unset).
// The chunks carry system_fingerprint "fp_ollama"; the usage has no
// cached count.

// ollamaRoutes serves Ollama's own endpoints; it reports false for any
// other path.
func (s *Server) ollamaRoutes(w http.ResponseWriter, r *http.Request, body []byte) bool {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/version":
		writeJSON(w, http.StatusOK, map[string]any{"version": "0.17.4"})
	case r.Method == http.MethodPost && r.URL.Path == "/api/show":
		s.ollamaShow(w, body)
	case r.Method == http.MethodGet && r.URL.Path == "/api/ps":
		s.ollamaPS(w)
	case r.Method == http.MethodGet && r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("Ollama is running"))
	default:
		return false
	}
	return true
}

func (s *Server) ollamaShow(w http.ResponseWriter, body []byte) {
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &req)
	m, ok := s.model(req.Model)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": fmt.Sprintf("model '%s' not found", req.Model)})
		return
	}
	caps := m.Capabilities
	if caps == nil {
		caps = []string{"completion", "tools"}
	}
	params := ""
	if m.NumCtx > 0 {
		params = fmt.Sprintf("num_ctx                        %d", m.NumCtx)
	}
	writeJSON(w, http.StatusOK, map[string]any{"capabilities": caps, "parameters": params,
		"details":    map[string]any{"format": "gguf", "family": "qwen3", "parameter_size": "8.2B", "quantization_level": "Q4_K_M"},
		"model_info": map[string]any{"general.architecture": "qwen3", "qwen3.context_length": m.Trained}})
}

func (s *Server) ollamaPS(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	models := []map[string]any{}
	for _, m := range s.models {
		if s.loaded[m.Name] {
			models = append(models, map[string]any{"name": m.Name, "model": m.Name, "size": 72 << 20, "size_vram": 72 << 20,
				"context_length": m.Window, "expires_at": time.Date(2026, 1, 28, 18, 39, 16, 0, time.UTC)})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

// Load has Ollama load model, as a request for it does: /api/ps lists it
// with its window.
func (s *Server) Load(model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.modelLocked(model); ok {
		s.loaded[m.Name] = true
	}
}

// tagged is an Ollama model name with its tag, ":latest" when it has
// none.
func tagged(name string) string {
	if strings.Contains(name[strings.LastIndexByte(name, '/')+1:], ":") {
		return name
	}
	return name + ":latest"
}
