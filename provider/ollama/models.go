package ollama

import (
	"context"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/provider"
)

// Model implements provider.Provider: it asks /api/show about the model
// (the configured one, else the first installed model with tool support),
// checks that it can chat with tools, and chooses num_ctx: the configured
// value, capped at the model's trained context length.
func (c *Client) Model(ctx context.Context, name string) (provider.ModelInfo, error) {
	var show *api.ShowResponse
	var err error
	if name == "" {
		name, show, err = c.chooseModel(ctx)
	} else {
		show, err = c.api.Show(ctx, &api.ShowRequest{Model: name})
	}
	if err != nil {
		return provider.ModelInfo{Name: name}, c.classify(err, name)
	}
	info := provider.ModelInfo{
		Name:          name,
		Capabilities:  capabilities(show),
		ContextLength: contextLength(show.ModelInfo),
	}
	if !info.Has("completion") {
		return info, provider.Errorf(provider.ErrNoToolSupport, nil,
			"model %q cannot chat (its capabilities are %s): pick a chat model with -m", name, strings.Join(info.Capabilities, ", "))
	}
	if !info.Has("tools") {
		return info, noToolSupport(name)
	}
	info.NumCtx = c.opts.Options.NumCtx
	if info.ContextLength > 0 {
		info.NumCtx = min(info.NumCtx, info.ContextLength)
	}
	return info, nil
}

// installedModel is an installed model with what /api/show said of it.
type installedModel struct {
	api.ListModelResponse
	show *api.ShowResponse
	err  error // /api/show failed for this model
}

// installed lists the installed models, in the server's order, asking
// /api/show about each: the one listing both the choice of a model and the
// picker use.
func (c *Client) installed(ctx context.Context) ([]installedModel, error) {
	list, err := c.api.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]installedModel, len(list.Models))
	for i, m := range list.Models {
		out[i].ListModelResponse = m
		out[i].show, out[i].err = c.api.Show(ctx, &api.ShowRequest{Model: m.Name})
	}
	return out, nil
}

// chooseModel returns the first installed model whose capabilities include
// tools.
func (c *Client) chooseModel(ctx context.Context) (string, *api.ShowResponse, error) {
	list, err := c.installed(ctx)
	if err != nil {
		return "", nil, err
	}
	if len(list) == 0 {
		return "", nil, provider.Errorf(provider.ErrNoModel, nil, "no model is installed in Ollama at %s: run \"ollama pull %s\"", c.base, SuggestedModel)
	}
	var names []string
	for _, m := range list {
		if m.err != nil {
			return "", nil, m.err
		}
		caps := capabilities(m.show)
		if caps == nil || slices.Contains(caps, "tools") && slices.Contains(caps, "completion") {
			return m.Name, m.show, nil
		}
		names = append(names, m.Name)
	}
	return "", nil, provider.Errorf(provider.ErrNoModel, nil,
		"none of the installed models (%s) supports tool calling: run \"ollama pull %s\" or pass a model with -m",
		strings.Join(names, ", "), SuggestedModel)
}

// Models implements provider.Provider: the installed models, in the
// server's order, with whether each supports tools.
func (c *Client) Models(ctx context.Context) ([]provider.ModelSummary, error) {
	list, err := c.installed(ctx)
	if err != nil {
		return nil, c.classify(err, "")
	}
	out := make([]provider.ModelSummary, 0, len(list))
	for _, m := range list {
		if m.err != nil {
			return nil, c.classify(m.err, m.Name)
		}
		caps := capabilities(m.show)
		out = append(out, provider.ModelSummary{
			Name:          m.Name,
			ParameterSize: m.Details.ParameterSize,
			Quantization:  m.Details.QuantizationLevel,
			Size:          m.Size,
			Tools:         caps == nil || slices.Contains(caps, "tools"),
		})
	}
	return out, nil
}

// Pull implements provider.Puller: it downloads a model, reporting each
// step to progress.
func (c *Client) Pull(ctx context.Context, name string, progress func(provider.PullProgress)) error {
	err := c.api.Pull(ctx, &api.PullRequest{Model: name}, func(r api.ProgressResponse) error {
		progress(provider.PullProgress{Status: r.Status, Digest: r.Digest, Total: r.Total, Completed: r.Completed})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return provider.Errorf(provider.ErrServer, err, "pulling %q failed: %v", name, err)
	}
	return nil
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
