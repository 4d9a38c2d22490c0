package hooks

import (
	"regexp"
	"slices"
)

// matcher is a hook's matcher, compiled: a name, or a regular expression
// that must match a whole name ("Edit|Write" is Edit or Write, never
// MultiEdit), as Claude Code reads them.
type matcher struct {
	all bool
	re  *regexp.Regexp
}

// compile compiles a matcher; one that is not a regular expression (the
// config refuses those) matches nothing.
func compile(m string) matcher {
	if m == "" || m == "*" {
		return matcher{all: true}
	}
	re, err := regexp.Compile(`^(?:` + m + `)$`)
	if err != nil {
		return matcher{}
	}
	return matcher{re: re}
}

// matches reports whether the matcher takes one of keys; nil keys (an
// event without matchers) are always taken.
func (m matcher) matches(keys []string) bool {
	switch {
	case keys == nil || m.all:
		return true
	case m.re == nil:
		return false
	}
	return slices.ContainsFunc(keys, m.re.MatchString)
}
