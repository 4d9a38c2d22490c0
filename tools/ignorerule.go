package tools

import "strings"

// ignoreRule is one line of a .gitignore, parsed.
type ignoreRule struct {
	pattern  string // without '!', the trailing '/' and a leading '/'
	negate   bool   // "!pattern": re-include what an earlier rule excluded
	dirOnly  bool   // "pattern/": match directories only
	anchored bool   // the pattern has a '/': match the path from the domain
	// For an anchored pattern without "**", '[' or '\', its components,
	// each matched against one component of the path.
	segments []string
}

// parseRule parses one line of a .gitignore whose comments and trailing
// spaces are gone. ok is false if the line holds no rule.
func parseRule(s string) (r ignoreRule, ok bool) {
	if rest, neg := strings.CutPrefix(s, "!"); neg {
		r.negate, s = true, rest
	}
	if rest, dir := strings.CutSuffix(s, "/"); dir {
		r.dirOnly, s = true, rest
	}
	if strings.Contains(s, "/") {
		r.anchored = true
		s = strings.TrimPrefix(s, "/")
		// "**/name" matches name at any depth: the same as a plain name.
		if rest, ok := strings.CutPrefix(s, "**/"); ok && !strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
			r.anchored, s = false, rest
		}
	}
	if s == "" {
		return ignoreRule{}, false
	}
	r.pattern = s
	if r.anchored && !strings.Contains(s, "**") && !strings.ContainsAny(s, `[\`) {
		r.segments = strings.Split(s, "/")
	}
	return r, true
}

// ruleKind is how a bound rule tests a name.
type ruleKind uint8

const (
	ruleExact  ruleKind = iota // name == s
	ruleSuffix                 // "*s": name ends with s
	ruleGlob                   // wildmatch(s, name)
	rulePath                   // the path from the domain matches s (wildmatchPath)
)

// boundRule is an ignoreRule bound to one directory: a test on the names of
// its entries.
type boundRule struct {
	kind    ruleKind
	negate  bool
	dirOnly bool
	s       string
	dir     string // for rulePath: the directory's path from the domain, with a trailing '/'
}

func (b *boundRule) match(name string) bool {
	switch b.kind {
	case ruleExact:
		return name == b.s
	case ruleSuffix:
		return strings.HasSuffix(name, b.s)
	case ruleGlob:
		return wildmatch(b.s, name)
	}
	return wildmatchPath(b.s, b.dir+name)
}

// nameRule returns the cheapest test of a name against the component
// pattern p.
func nameRule(p string) (ruleKind, string) {
	switch {
	case !strings.ContainsAny(p, `*?[\`):
		return ruleExact, p
	case p[0] == '*' && !strings.ContainsAny(p[1:], `*?[\`):
		return ruleSuffix, p[1:]
	}
	return ruleGlob, p
}

// bind returns the rule as it applies to the entries of a directory whose
// components from the rule's domain are rel (joined: relPath); ok is false
// if it can match none of them.
func (r *ignoreRule) bind(rel []string, relPath string) (b boundRule, ok bool) {
	b = boundRule{negate: r.negate, dirOnly: r.dirOnly}
	switch {
	case !r.anchored:
		b.kind, b.s = nameRule(r.pattern)
		return b, true
	case r.segments != nil:
		if len(r.segments) != len(rel)+1 {
			return b, false
		}
		for i, seg := range rel {
			if !wildmatch(r.segments[i], seg) {
				return b, false
			}
		}
		b.kind, b.s = nameRule(r.segments[len(rel)])
		return b, true
	}
	dir := ""
	if relPath != "" {
		dir = relPath + "/"
	}
	// The pattern's literal start must agree with the directory's path.
	lit := r.pattern[:literalPrefix(r.pattern)]
	if n := min(len(lit), len(dir)); lit[:n] != dir[:n] {
		return b, false
	}
	b.kind, b.s, b.dir = rulePath, r.pattern, dir
	return b, true
}

// literalPrefix is the length of the start of p that holds no glob
// character.
func literalPrefix(p string) int {
	if i := strings.IndexAny(p, `*?[\`); i >= 0 {
		return i
	}
	return len(p)
}

// wildmatchPath matches a path against an anchored pattern as git does:
// the pattern's literal start is compared as is, and the rest matched from
// there as a pattern of its own, so that a "**" right after the literal
// start counts as one at the start of a pattern.
func wildmatchPath(pattern, p string) bool {
	n := literalPrefix(pattern)
	if !strings.HasPrefix(p, pattern[:n]) {
		return false
	}
	return wildmatch(pattern[n:], p[n:])
}
