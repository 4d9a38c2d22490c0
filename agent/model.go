package agent

import (
	"context"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
)

// DefaultNumCtx is the context window used when neither the config nor
// the model's trained length says less.
const DefaultNumCtx = 32768

// ModelInfo is what lathe learned about the model, once per session.
type ModelInfo struct {
	Name string
	// Capabilities as /api/show lists them; nil when the server is too
	// old to list any.
	Capabilities []string
	// ContextLength is the model's trained context length; 0 if unknown.
	ContextLength int
	// NumCtx is the context window lathe asks for on every request.
	NumCtx int
}

// Has reports whether the model lists capability c. A server that lists
// no capabilities gets the benefit of the doubt.
func (m ModelInfo) Has(c string) bool {
	return m.Capabilities == nil || slices.Contains(m.Capabilities, c)
}

// resolveModel picks the model (the configured one, else the first
// installed model with the tools capability), asks /api/show about it once,
// checks that it can chat with tools, and chooses num_ctx.
func resolveModel(ctx context.Context, c Client, name string, numCtx int, baseURL string) (ModelInfo, error) {
	var show *api.ShowResponse
	var err error
	if name == "" {
		name, show, err = chooseModel(ctx, c, baseURL)
	} else {
		show, err = c.Show(ctx, &api.ShowRequest{Model: name})
	}
	if err != nil {
		return ModelInfo{}, classify(err, baseURL, name)
	}
	info := ModelInfo{
		Name:          name,
		Capabilities:  capabilities(show),
		ContextLength: contextLength(show.ModelInfo),
	}
	if !info.Has("completion") {
		return info, failure(ErrNoToolSupport, nil,
			"model %q cannot chat (its capabilities are %s): pick a chat model with -m", name, strings.Join(info.Capabilities, ", "))
	}
	if !info.Has("tools") {
		return info, noToolSupport(name)
	}
	info.NumCtx = numCtx
	if info.NumCtx <= 0 {
		info.NumCtx = DefaultNumCtx
	}
	if info.ContextLength > 0 {
		info.NumCtx = min(info.NumCtx, info.ContextLength)
	}
	return info, nil
}

// chooseModel returns the first installed model whose capabilities include
// tools.
func chooseModel(ctx context.Context, c Client, baseURL string) (string, *api.ShowResponse, error) {
	list, err := c.List(ctx)
	if err != nil {
		return "", nil, err
	}
	if len(list.Models) == 0 {
		return "", nil, failure(ErrNoModel, nil, "no model is installed in Ollama at %s: run \"ollama pull %s\"", baseURL, SuggestedModel)
	}
	var names []string
	for _, m := range list.Models {
		show, err := c.Show(ctx, &api.ShowRequest{Model: m.Name})
		if err != nil {
			return "", nil, err
		}
		caps := capabilities(show)
		if caps == nil || slices.Contains(caps, "tools") && slices.Contains(caps, "completion") {
			return m.Name, show, nil
		}
		names = append(names, m.Name)
	}
	return "", nil, failure(ErrNoModel, nil,
		"none of the installed models (%s) supports tool calling: run \"ollama pull %s\" or pass a model with -m",
		strings.Join(names, ", "), SuggestedModel)
}

func capabilities(show *api.ShowResponse) []string {
	if show.Capabilities == nil {
		return nil
	}
	caps := make([]string, len(show.Capabilities))
	for i, c := range show.Capabilities {
		caps[i] = string(c)
	}
	return caps
}

// contextLength reads "<architecture>.context_length" from model_info.
func contextLength(info map[string]any) int {
	if arch, ok := info["general.architecture"].(string); ok {
		if n, ok := number(info[arch+".context_length"]); ok {
			return n
		}
	}
	for k, v := range info {
		if strings.HasSuffix(k, ".context_length") {
			if n, ok := number(v); ok {
				return n
			}
		}
	}
	return 0
}

func number(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), true
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}
