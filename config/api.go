package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// checkAPIURL says what is wrong with an OpenAI-compatible server's URL,
// "" when nothing is.
func checkAPIURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	switch {
	case err != nil:
		return fmt.Sprintf("%q is not a URL", s)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q: give the scheme, http:// or https:// (for example http://127.0.0.1:8080/v1)", s)
	case u.Host == "":
		return fmt.Sprintf("%q has no host", s)
	case u.User != nil:
		return "a user name or password is not supported in it: put the key in a variable named by api_key_env"
	}
	return ""
}

// check says what is wrong with a host entry, "" when nothing is.
func (h Host) check() string {
	switch h.Provider {
	case ProviderOpenAI:
		if h.URL == "" {
			return `url is missing (for example "http://gpu-box:8000/v1")`
		}
		return checkAPIURL(h.URL)
	case ProviderOllama:
		if _, err := ollamaURL(h.URL); err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				return "url: " + ce.Msg
			}
			return "url: " + err.Error()
		}
	case "":
		return fmt.Sprintf("provider is missing: %q or %q", ProviderOllama, ProviderOpenAI)
	default:
		return fmt.Sprintf("unknown provider %q: use %q or %q", h.Provider, ProviderOllama, ProviderOpenAI)
	}
	if !validEnvName(h.APIKeyEnv) {
		return "api_key_env must name an environment variable, not hold the key"
	}
	if slices.Contains(h.Models, "") {
		return "models holds an empty name"
	}
	return ""
}

// OllamaHostURL is the URL of an Ollama host entry, by OLLAMA_HOST's rules.
func (h Host) OllamaHostURL() (*url.URL, error) {
	u, err := ollamaURL(h.URL)
	if err != nil {
		return nil, err
	}
	return u, nil
}

// validEnvName reports whether s could name an environment variable ("" is
// no variable).
func validEnvName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// apiKey is the value of the variable name names, "" for no name.
func apiKey(getenv func(string) string, name string) string {
	if name == "" {
		return ""
	}
	return strings.TrimSpace(getenv(name))
}

// badEnvPattern says which of patterns is not a variable's name with "*"
// standing for any run of characters; "" when all are.
func badEnvPattern(patterns []string) string {
	for _, p := range patterns {
		if p == "" || !validEnvName(strings.ReplaceAll(p, "*", "a")) {
			return fmt.Sprintf("%q is not a variable's name or pattern (letters, digits, _ and *)", p)
		}
	}
	return ""
}
