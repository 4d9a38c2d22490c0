package cli

import (
	"net/url"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/hosts"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/openai"
)

// backend is the model server a session talks to, as the config says.
type backend struct {
	provider provider.Provider
	// puller downloads a missing model; nil when the server cannot (an
	// OpenAI-compatible server loads its own).
	puller provider.Puller
	// url names the server on screens.
	url string
	// suggested is the model to offer pulling when none is installed.
	suggested string
	// pool is the [[hosts]] pool; nil for a single server.
	pool *hosts.Pool
}

// newBackend builds the backend of cfg: [[hosts]] when there are any, else
// the one server provider and base_url (or OLLAMA_HOST) name.
func newBackend(cfg config.Config) (backend, error) {
	if len(cfg.Hosts) > 0 {
		list := make([]hosts.Host, len(cfg.Hosts))
		for i, h := range cfg.Hosts {
			p, url, err := hostProvider(cfg, h)
			if err != nil {
				return backend{}, err
			}
			list[i] = hosts.Host{URL: url, Provider: p, Models: h.Models}
		}
		pool := hosts.New(list)
		return backend{provider: pool, puller: pool, url: pool.URL(), suggested: ollama.SuggestedModel, pool: pool}, nil
	}
	if cfg.Provider == config.ProviderOpenAI {
		c := openaiClient(cfg, cfg.BaseURL, cfg.APIKey, cfg.APIKeyEnv)
		return backend{provider: c, url: c.URL()}, nil
	}
	c := ollamaClient(cfg, cfg.OllamaURL)
	return backend{provider: c, puller: c, url: c.URL(), suggested: ollama.SuggestedModel}, nil
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
	c := ollamaClient(cfg, u)
	return c, c.URL(), nil
}

func ollamaClient(cfg config.Config, u *url.URL) *ollama.Client {
	return ollama.New(ollama.Options{URL: u, Options: cfg.Options, KeepAlive: cfg.KeepAlive.Duration})
}

func openaiClient(cfg config.Config, base, key, keyEnv string) *openai.Client {
	return openai.New(openai.Options{BaseURL: base, APIKey: key, APIKeyEnv: keyEnv, Options: cfg.Options,
		ContextLength: cfg.ContextLength})
}
