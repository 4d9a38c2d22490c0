package textcall

import "strings"

// Resolver returns a resolve function for Find that accepts the registered
// names: a name matches exactly, else case-insensitively, else once one of
// the prefixes "functions.", "function.", "tools." or "tool." is stripped
// ("functions.Read_File" resolves to "read_file"). Surrounding whitespace
// is ignored. When two names differ only in case, the first listed wins a
// case-insensitive match.
func Resolver(names []string) func(string) (string, bool) {
	exact := make(map[string]string, len(names))
	folded := make(map[string]string, len(names))
	for _, n := range names {
		exact[n] = n
		if _, dup := folded[strings.ToLower(n)]; !dup {
			folded[strings.ToLower(n)] = n
		}
	}
	lookup := func(name string) (string, bool) {
		if n, ok := exact[name]; ok {
			return n, true
		}
		n, ok := folded[strings.ToLower(name)]
		return n, ok
	}
	return func(name string) (string, bool) {
		name = strings.TrimSpace(name)
		if n, ok := lookup(name); ok {
			return n, true
		}
		for _, p := range []string{"functions.", "function.", "tools.", "tool."} {
			if len(name) > len(p) && strings.EqualFold(name[:len(p)], p) {
				return lookup(name[len(p):])
			}
		}
		return "", false
	}
}
