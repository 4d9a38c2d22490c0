package provider

import "strings"

// SameModel reports whether a and b name the same model as Ollama reads
// names: a name without a tag is the name with ":latest" ("qwen3" is
// "qwen3:latest"), and case does not matter. Servers list names tagged
// ("qwen3:latest", in /api/tags and /api/ps, and in Ollama's /v1/models)
// while people write them without.
func SameModel(a, b string) bool {
	return strings.EqualFold(Tagged(a), Tagged(b))
}

// Tagged is name with ":latest" when it has no tag. A colon before the
// last slash belongs to a host's port ("host:5000/model"), not a tag.
func Tagged(name string) string {
	if name == "" || strings.Contains(name[strings.LastIndexByte(name, '/')+1:], ":") {
		return name
	}
	return name + ":latest"
}

// FindModel is the entry of names that SameModel matches with name: name
// itself when listed, else the first that matches; ok is false when none
// does.
func FindModel[V any](names map[string]V, name string) (string, V, bool) {
	if v, ok := names[name]; ok {
		return name, v, true
	}
	for n, v := range names {
		if SameModel(n, name) {
			return n, v, true
		}
	}
	var zero V
	return "", zero, false
}
