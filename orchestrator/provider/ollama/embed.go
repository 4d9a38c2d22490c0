package ollama

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider"
)

var _ provider.Embedder = (*Client)(nil)

// EmbeddingModels are the embedding models lathe looks for when none is
// configured, in order: small, good at code, and in Ollama's library.
var EmbeddingModels = []string{"embeddinggemma", "nomic-embed-text"}

// Embed implements provider.Embedder through POST /api/embed. The server
// cuts an input longer than the model's context (truncate is left to its
// default); each vector is made of unit length here, whatever the model
// returned.
func (c *Client) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	c.embeds.Add(1)
	resp, err := c.api.Embed(ctx, &api.EmbedRequest{Model: model, Input: inputs})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, c.classify(err, model)
	}
	if len(resp.Embeddings) != len(inputs) {
		return nil, provider.Errorf(provider.ErrServer, nil, "Ollama returned %d embeddings for %d inputs", len(resp.Embeddings), len(inputs))
	}
	dims := len(resp.Embeddings[0])
	for _, v := range resp.Embeddings {
		if len(v) != dims || dims == 0 {
			return nil, provider.Errorf(provider.ErrServer, nil, "Ollama returned embeddings of different lengths (%d and %d)", dims, len(v))
		}
		unit(v)
	}
	return resp.Embeddings, nil
}

// unit scales v to unit length (a zero vector stays zero).
func unit(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.Abs(sum-1) < 1e-6 {
		return
	}
	n := math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
}

// EmbeddingModel implements provider.Embedder: the model named, if it is
// installed and lists the embedding capability (or lists none: an old
// server), else the first of EmbeddingModels installed, under the name
// it is installed as ("embeddinggemma:latest").
func (c *Client) EmbeddingModel(ctx context.Context, name string) (string, error) {
	list, err := c.installed(ctx, false)
	if err != nil {
		return "", c.classify(err, name)
	}
	wanted := EmbeddingModels
	if name != "" {
		wanted = []string{name}
	}
	for _, w := range wanted {
		i := slices.IndexFunc(list, func(m installedModel) bool { return sameModel(m.Name, w) })
		if i < 0 {
			continue
		}
		found := list[i].Name
		show, err := c.api.Show(ctx, &api.ShowRequest{Model: found})
		if err != nil {
			return "", c.classify(err, found)
		}
		if caps := capabilities(show); caps != nil && !slices.Contains(caps, "embedding") {
			return "", provider.Errorf(provider.ErrNoModel, nil,
				"%s is not an embedding model (its capabilities are %s): set index.model to one, such as %s",
				found, strings.Join(caps, ", "), EmbeddingModels[0])
		}
		return found, nil
	}
	if name != "" {
		return "", provider.Errorf(provider.ErrNoModel, nil, "the embedding model %q is not installed: run \"ollama pull %s\"", name, name)
	}
	return "", provider.Errorf(provider.ErrNoModel, nil,
		"no embedding model is installed (lathe looks for %s): run \"ollama pull %s\"",
		strings.Join(EmbeddingModels, ", "), EmbeddingModels[0])
}

// sameModel reports whether an installed model's name is the one wanted:
// the same name, a name without a tag meaning any tag of it
// ("embeddinggemma" is "embeddinggemma:latest" or "embeddinggemma:300m"),
// compared without regard to case as Ollama compares names.
func sameModel(installed, wanted string) bool {
	if provider.SameModel(installed, wanted) {
		return true
	}
	base, _, _ := strings.Cut(installed, ":")
	return !strings.Contains(wanted, ":") && strings.EqualFold(base, wanted)
}
