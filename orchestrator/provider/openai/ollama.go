package openai

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"lathe/orchestrator/provider"
)

// Ollama answers its own API on the host of its OpenAI-compatible one:
// what /v1/models leaves out (each model's capabilities, its trained
// length, the window it runs with) comes from /api/show and /api/ps.
// The window is Ollama's: /v1 takes no num_ctx, no truncate:false and no
// shift:false, so a prompt longer than it is cut silently and a reply
// that fills it goes on with the start of the context dropped. lathe
// notices both after the fact; its native Ollama path prevents them.

// ollamaDefaultWindow is the window Ollama gives a model it has not
// loaded yet, at least: its default num_ctx on a machine with less than
// 24 GB of GPU memory (more on larger ones, or OLLAMA_CONTEXT_LENGTH).
const ollamaDefaultWindow = 4096

// ollamaNote says what the OpenAI path to Ollama cannot guarantee.
func (c *Client) ollamaNote() string {
	return fmt.Sprintf("%s is Ollama's OpenAI-compatible API, which cuts a prompt longer than the window silently "+
		"(its system prompt and tools first) and lets a reply run past it, dropping the start of the context: lathe "+
		"can only notice it after the fact. Its native Ollama path prevents both and sets the window itself: "+
		"provider = \"ollama\" with base_url = %q", c.base, c.root())
}

// ollamaModels completes what /v1/models said of Ollama's models: their
// capabilities (an embedding model is no chat model), trained length,
// the num_ctx their Modelfile sets, and the window the loaded ones run
// with; and adds the note on what this path cannot guarantee.
func (c *Client) ollamaModels(ctx context.Context, info *serverInfo) {
	info.notes = append(info.notes, c.ollamaNote())
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	_ = c.get(ctx, c.root()+"/api/ps", &ps)
	for i := range info.models {
		m := &info.models[i]
		var show struct {
			Capabilities []string       `json:"capabilities"`
			Parameters   string         `json:"parameters"`
			ModelInfo    map[string]any `json:"model_info"`
		}
		body := fmt.Sprintf(`{"model":%q}`, m.id)
		if c.send(ctx, http.MethodPost, c.root()+"/api/show", body, &show) == nil {
			if show.Capabilities != nil {
				tools := slices.Contains(show.Capabilities, "tools")
				m.tools = &tools
				m.chat = slices.Contains(show.Capabilities, "completion")
				m.vision = slices.Contains(show.Capabilities, "vision")
			}
			m.trained = trainedLength(show.ModelInfo)
			m.numCtx = parameter(show.Parameters, "num_ctx")
		}
		m.loaded = false
		for _, l := range ps.Models {
			if provider.SameModel(l.Name, m.id) {
				m.loaded, m.window = true, l.ContextLength
			}
		}
	}
}

// trainedLength reads "<architecture>.context_length" from /api/show's
// model_info.
func trainedLength(info map[string]any) int {
	arch, _ := info["general.architecture"].(string)
	if n, ok := info[arch+".context_length"].(float64); ok {
		return int(n)
	}
	return 0
}

// parameter reads a number from a Modelfile's parameters, one
// "name value" a line.
func parameter(params, name string) int {
	for _, line := range strings.Split(params, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == name {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// ollamaWindow is the window Ollama runs model with, from /api/ps, asked
// once the model is loaded and then kept: the window lathe was told
// (context_length) or assumed may not be it, and a prompt cut to the
// real one would go unnoticed. 0 when Ollama does not say.
func (c *Client) ollamaWindow(ctx context.Context, model string) int {
	c.mu.Lock()
	w, ok := c.windows[model]
	c.mu.Unlock()
	if ok {
		return w
	}
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if c.get(ctx, c.root()+"/api/ps", &ps) != nil {
		return 0
	}
	for _, l := range ps.Models {
		if provider.SameModel(l.Name, model) && l.ContextLength > 0 {
			c.mu.Lock()
			c.windows[model] = l.ContextLength
			c.mu.Unlock()
			return l.ContextLength
		}
	}
	return 0
}
