package hosts

import (
	"context"
	"errors"
	"strings"

	"lathe/orchestrator/provider"
)

var _ provider.Embedder = (*Pool)(nil)

// embedders are the hosts that make embeddings (Ollama's), the host in
// use first, then the others in order.
func (p *Pool) embedders() []int {
	p.mu.Lock()
	current := p.current
	p.mu.Unlock()
	var out []int
	if current >= 0 {
		if _, ok := p.hosts[current].Provider.(provider.Embedder); ok {
			out = append(out, current)
		}
	}
	for i, h := range p.hosts {
		if _, ok := h.Provider.(provider.Embedder); ok && i != current {
			out = append(out, i)
		}
	}
	return out
}

// EmbeddingModel implements provider.Embedder on the hosts that make
// embeddings, the host in use first: the first that has the model (or,
// for "", one of the default ones) is the one Embed uses.
func (p *Pool) EmbeddingModel(ctx context.Context, name string) (string, error) {
	order := p.embedders()
	if len(order) == 0 {
		return "", provider.Errorf(provider.ErrNoModel, nil,
			"no host of [[hosts]] is an Ollama server, which the code index needs for its embeddings")
	}
	var missing error
	var why []string
	for _, i := range order {
		model, err := p.hosts[i].Provider.(provider.Embedder).EmbeddingModel(ctx, name)
		switch {
		case err == nil:
			p.mu.Lock()
			p.embedding = i
			p.mu.Unlock()
			return model, nil
		case ctx.Err() != nil:
			return "", ctx.Err()
		case errors.Is(err, provider.ErrNoModel) && missing == nil:
			missing = err
		}
		why = append(why, p.hosts[i].URL+": "+err.Error())
	}
	if missing != nil {
		return "", missing // what to pull
	}
	return "", provider.Errorf(provider.ErrUnreachable, nil, "no host makes embeddings (%s)", strings.Join(why, "; "))
}

// Embed implements provider.Embedder on the host EmbeddingModel chose;
// when it cannot be reached, on the next that has the model.
func (p *Pool) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	p.mu.Lock()
	i := p.embedding
	p.mu.Unlock()
	if i >= 0 {
		out, err := p.hosts[i].Provider.(provider.Embedder).Embed(ctx, model, inputs)
		if !errors.Is(err, provider.ErrUnreachable) {
			return out, err
		}
	}
	if _, err := p.EmbeddingModel(ctx, model); err != nil {
		return nil, err
	}
	p.mu.Lock()
	i = p.embedding
	p.mu.Unlock()
	return p.hosts[i].Provider.(provider.Embedder).Embed(ctx, model, inputs)
}

// Embeds reports whether a host of the pool makes embeddings.
func (p *Pool) Embeds() bool { return len(p.embedders()) > 0 }

// EmbedCalls is how many embedding requests the host in use has made,
// when it counts them.
func (p *Pool) EmbedCalls() int64 {
	h, ok := p.Current()
	if !ok {
		return 0
	}
	if e, ok := h.Provider.(interface{ EmbedCalls() int64 }); ok {
		return e.EmbedCalls()
	}
	return 0
}
