package ollama

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider"
)

// Model implements provider.Provider: it asks /api/show about the model
// (the configured one, else the default choice: see chooseModel), checks
// that it can chat with tools, and chooses num_ctx: the configured value,
// capped at the model's trained context length. A model named explicitly
// that lists no capabilities (an old server) gets the benefit of the
// doubt.
func (c *Client) Model(ctx context.Context, name string) (provider.ModelInfo, error) {
	var show *api.ShowResponse
	var skipped []string
	var err error
	if name == "" {
		name, show, skipped, err = c.chooseModel(ctx)
	} else {
		show, err = c.api.Show(ctx, &api.ShowRequest{Model: name})
	}
	if err != nil {
		return provider.ModelInfo{Name: name, Skipped: skipped}, c.classify(err, name)
	}
	info := provider.ModelInfo{
		Name:            name,
		Capabilities:    capabilities(show),
		ContextLength:   contextLength(show.ModelInfo),
		Remote:          show.RemoteHost,
		Skipped:         skipped,
		KVBytesPerToken: kvBytesPerToken(show.ModelInfo),
		ParameterSize:   show.Details.ParameterSize,
		Quantization:    show.Details.QuantizationLevel,
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

// remote is the host a remote model runs on, from the listing or from
// /api/show; empty for a local model.
func (m installedModel) remote() string {
	if m.RemoteHost != "" || m.show == nil {
		return m.RemoteHost
	}
	return m.show.RemoteHost
}

// installed lists the installed models, newest first, ties (the server
// sorts to the second, ties in random order) by name: the order does not
// change from one call to the next. With show, it asks /api/show about
// each: the listing both the default choice and the picker use.
func (c *Client) installed(ctx context.Context, show bool) ([]installedModel, error) {
	list, err := c.api.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]installedModel, len(list.Models))
	for i, m := range list.Models {
		out[i].ListModelResponse = m
	}
	slices.SortStableFunc(out, func(a, b installedModel) int {
		if c := b.ModifiedAt.Compare(a.ModifiedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	if show {
		for i := range out {
			out[i].show, out[i].err = c.api.Show(ctx, &api.ShowRequest{Model: out[i].Name})
		}
	}
	return out, nil
}

// chooseModel picks the default model: the newest installed model (ties
// by name) that runs on this server (never a remote or cloud model: the
// project's files would leave the machine) and lists both the completion
// and the tools capabilities. A model the server cannot describe is
// passed over and named in skipped, as is a model that lists no
// capabilities: only a model named explicitly gets the benefit of the
// doubt.
func (c *Client) chooseModel(ctx context.Context) (name string, show *api.ShowResponse, skipped []string, err error) {
	list, err := c.installed(ctx, false)
	if err != nil {
		return "", nil, nil, err
	}
	if len(list) == 0 {
		return "", nil, nil, provider.Errorf(provider.ErrNoModel, nil, "no model is installed in Ollama at %s: run \"ollama pull %s\"", c.base, SuggestedModel)
	}
	var local, unknown []string
	for _, m := range list {
		if m.remote() != "" {
			continue
		}
		show, err := c.api.Show(ctx, &api.ShowRequest{Model: m.Name})
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %s", m.Name, c.classify(err, m.Name)))
			continue
		}
		if show.RemoteHost != "" {
			continue
		}
		caps := capabilities(show)
		switch {
		case slices.Contains(caps, "tools") && slices.Contains(caps, "completion"):
			return m.Name, show, skipped, nil
		case caps == nil:
			unknown = append(unknown, m.Name)
		}
		local = append(local, m.Name)
	}
	msg := "none of the installed models supports tool calling"
	switch {
	case len(local) == 0 && len(skipped) == 0:
		msg = "every installed model is a remote (cloud) model, which lathe does not pick by itself"
	case len(local) > 0:
		msg = fmt.Sprintf("none of the installed models (%s) supports tool calling", strings.Join(local, ", "))
	}
	if len(unknown) > 0 {
		msg += fmt.Sprintf(" (%s list no capabilities: name one with -m to try it)", strings.Join(unknown, ", "))
	}
	if len(skipped) > 0 {
		msg += "; Ollama could not describe " + strings.Join(skipped, "; ")
	}
	return "", nil, skipped, provider.Errorf(provider.ErrNoModel, nil,
		"%s: run \"ollama pull %s\" or pass a model with -m", msg, SuggestedModel)
}

// Models implements provider.Provider: the installed models, in the order
// of the default choice, with whether each supports tools, runs remotely,
// or could not be described.
func (c *Client) Models(ctx context.Context) ([]provider.ModelSummary, error) {
	list, err := c.installed(ctx, true)
	if err != nil {
		return nil, c.classify(err, "")
	}
	out := make([]provider.ModelSummary, 0, len(list))
	for _, m := range list {
		sum := provider.ModelSummary{
			Name:          m.Name,
			ParameterSize: m.Details.ParameterSize,
			Quantization:  m.Details.QuantizationLevel,
			Size:          m.Size,
			Remote:        m.remote(),
		}
		if m.err != nil {
			sum.Broken = c.classify(m.err, m.Name).Error()
		} else {
			caps := capabilities(m.show)
			sum.Tools = caps == nil || slices.Contains(caps, "tools")
			sum.Vision = slices.Contains(caps, "vision")
		}
		out = append(out, sum)
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

// kvBytesPerToken works out, from model_info, what a token of context
// takes in the KV cache at 16 bits: a key and a value of each KV head in
// each layer. Models that vary the KV heads by layer list them (summed);
// 0 when the architecture does not say enough.
func kvBytesPerToken(info map[string]any) int64 {
	arch, _ := info["general.architecture"].(string)
	get := func(key string) (int, bool) { return number(info[arch+"."+key]) }
	layers, ok := get("block_count")
	if arch == "" || !ok || layers <= 0 {
		return 0
	}
	heads, _ := get("attention.head_count")
	kHead, okK := get("attention.key_length")
	vHead, okV := get("attention.value_length")
	if emb, ok := get("embedding_length"); ok && heads > 0 {
		if !okK {
			kHead = emb / heads
		}
		if !okV {
			vHead = emb / heads
		}
	}
	if kHead <= 0 || vHead <= 0 {
		return 0
	}
	var kvHeads int
	switch v := info[arch+".attention.head_count_kv"].(type) {
	case []any: // one count a layer
		for _, n := range v {
			if c, ok := number(n); ok {
				kvHeads += c
			}
		}
	default:
		n, ok := number(v)
		if !ok {
			n = heads
		}
		kvHeads = n * layers
	}
	return int64(kvHeads) * int64(kHead+vHead) * 2
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
