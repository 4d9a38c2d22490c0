package engine

import (
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
	// the backend is one, else the one OLLAMA_HOST names.
	Embedder *ollama.Client
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
		return Backend{Provider: pool, Pool: pool, Puller: pool, URL: pool.URL(), Suggested: ollama.SuggestedModel,
			Embedder: OllamaClient(cfg, cfg.OllamaURL)}, nil
	}
	if cfg.Provider == config.ProviderOpenAI {
		c := openaiClient(cfg, cfg.BaseURL, cfg.APIKey, cfg.APIKeyEnv)
		return Backend{Provider: c, OpenAI: c, URL: c.URL(), Embedder: OllamaClient(cfg, cfg.OllamaURL)}, nil
	}
	c := OllamaClient(cfg, cfg.OllamaURL)
	return Backend{Provider: c, Ollama: c, Puller: c, URL: c.URL(), Suggested: ollama.SuggestedModel, Embedder: c}, nil
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
// model options.
func OllamaClient(cfg config.Config, u *url.URL) *ollama.Client {
	return ollama.New(ollama.Options{URL: u, Options: cfg.Options, KeepAlive: cfg.KeepAlive.Duration})
}

func openaiClient(cfg config.Config, base, key, keyEnv string) *openai.Client {
	return openai.New(openai.Options{BaseURL: base, APIKey: key, APIKeyEnv: keyEnv, Options: cfg.Options,
		ContextLength: cfg.ContextLength})
}
