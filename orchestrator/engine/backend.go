package engine

import (
	"context"
	"errors"
	"net/url"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/hosts"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/openai"
)

// Backend is the model server a session talks to, as the config says.
// Exactly one of Ollama, OpenAI and Pool is set: the server's client as
// what it is.
type Backend struct {
	Provider provider.Provider
	Ollama   *ollama.Client
	OpenAI   *openai.Client
	// Pool is the [[hosts]] pool.
	Pool *hosts.Pool
	// Puller downloads a missing model; nil when the server cannot (an
	// OpenAI-compatible server loads its own).
	Puller provider.Puller
	// Embedder makes the code index's embeddings: the Ollama server when
	// the backend is one, the Ollama hosts of [[hosts]], else the Ollama
	// server OLLAMA_HOST names, which the chat does not need (see
	// embeddingServer).
	Embedder provider.Embedder
	// URL names the server on screens.
	URL string
	// Suggested is the model to offer pulling when none is installed.
	Suggested string
}

// NewBackend builds the backend of cfg: [[hosts]] when there are any,
// else the one server provider and base_url (or OLLAMA_HOST) name.
func NewBackend(cfg config.Config) (Backend, error) {
	if len(cfg.Hosts) > 0 {
		list := make([]hosts.Host, len(cfg.Hosts))
		for i, h := range cfg.Hosts {
			p, url, err := hostProvider(cfg, h)
			if err != nil {
				return Backend{}, err
			}
			list[i] = hosts.Host{URL: url, Provider: p, Models: h.Models}
		}
		pool := hosts.New(list)
		be := Backend{Provider: pool, Pool: pool, Puller: pool, URL: pool.URL(), Suggested: ollama.SuggestedModel, Embedder: pool}
		if !pool.Embeds() {
			be.Embedder = embeddingServer(cfg)
		}
		return be, nil
	}
	if cfg.Provider == config.ProviderOpenAI {
		c := openaiClient(cfg, cfg.BaseURL, cfg.APIKey, cfg.APIKeyEnv)
		return Backend{Provider: c, OpenAI: c, URL: c.URL(), Embedder: embeddingServer(cfg)}, nil
	}
	c := OllamaClient(cfg, cfg.OllamaURL)
	return Backend{Provider: c, Ollama: c, Puller: c, URL: c.URL(), Suggested: ollama.SuggestedModel, Embedder: c}, nil
}

// embeddingServer is the Ollama server OLLAMA_HOST names, for the
// embeddings of the code index alone: the chat goes elsewhere, so that
// it cannot be reached says what it is for, not that Ollama is needed.
func embeddingServer(cfg config.Config) provider.Embedder {
	return &embeddingOnly{OllamaClient(cfg, cfg.OllamaURL)}
}

// embeddingOnly is an Ollama server that only makes embeddings.
type embeddingOnly struct{ c *ollama.Client }

func (e *embeddingOnly) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	out, err := e.c.Embed(ctx, model, inputs)
	return out, e.explain(err)
}

func (e *embeddingOnly) EmbeddingModel(ctx context.Context, name string) (string, error) {
	m, err := e.c.EmbeddingModel(ctx, name)
	return m, e.explain(err)
}

func (e *embeddingOnly) explain(err error) error {
	if !errors.Is(err, provider.ErrUnreachable) {
		return err
	}
	return provider.Errorf(provider.ErrUnreachable, err, "the code search tool needs an Ollama server for the code index's embeddings, "+
		"and none answers at %s (OLLAMA_HOST names it): lathe runs without it", e.c.URL())
}

func hostProvider(cfg config.Config, h config.Host) (provider.Provider, string, error) {
	if h.Provider == config.ProviderOpenAI {
		c := openaiClient(cfg, h.URL, h.APIKey, h.APIKeyEnv)
		return c, c.URL(), nil
	}
	u, err := h.OllamaHostURL()
	if err != nil {
		return nil, "", err
	}
	c := OllamaClient(cfg, u)
	return c, c.URL(), nil
}

// OllamaClient is a client of the Ollama server at u, with the config's
// model options; a fast stream is read in batches, half a frame of the
// TUI apart.
func OllamaClient(cfg config.Config, u *url.URL) *ollama.Client {
	return ollama.New(ollama.Options{URL: u, Options: cfg.Options, KeepAlive: cfg.KeepAlive.Duration,
		Gather: provider.GatherInterval(cfg.TUI.FPS)})
}

func openaiClient(cfg config.Config, base, key, keyEnv string) *openai.Client {
	return openai.New(openai.Options{BaseURL: base, APIKey: key, APIKeyEnv: keyEnv, Options: cfg.Options,
		ContextLength: cfg.ContextLength, Gather: provider.GatherInterval(cfg.TUI.FPS)})
}
