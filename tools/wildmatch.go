package tools

// wildmatch reports whether text matches the .gitignore glob pattern as git
// matches paths: '*' and '?' match anything but '/', "[...]" is a bracket
// expression ('!' or '^' negates it; ranges and [:class:] names work; it
// never matches '/'), a backslash quotes the next character, and "**"
// between slashes or at either end matches any number of directories:
// "**/x" matches x at any depth, "x/**" everything inside x and "a/**/b"
// a/b, a/x/b, a/x/y/b and so on. Any other "**" is a plain '*'. Bytes are
// compared as they are, case-sensitively.
func wildmatch(pattern, text string) bool {
	return wildmatchAt(pattern, text, 0, 0) == wmMatch
}

// wmResult tells a caller that tries other splits whether to go on: after
// wmAbortToStar no later split of the enclosing '*' can match either, and
// after wmAbortAll nothing can.
type wmResult int

const (
	wmMatch wmResult = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStar
)

func wildmatchAt(p, t string, pi, ti int) wmResult {
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		c := p[pi]
		if ti == len(t) && c != '*' {
			return wmAbortAll
		}
		switch c {
		case '\\':
			pi++
			if pi == len(p) || p[pi] != t[ti] {
				return wmNoMatch
			}
		case '?':
			if t[ti] == '/' {
				return wmNoMatch
			}
		case '*':
			return star(p, t, pi, ti)
		case '[':
			n, ok, valid := bracket(p, pi, t[ti])
			if !valid {
				return wmAbortAll
			}
			if !ok || t[ti] == '/' {
				return wmNoMatch
			}
			pi = n
		default:
			if c != t[ti] {
				return wmNoMatch
			}
		}
	}
	if ti == len(t) {
		return wmMatch
	}
	return wmNoMatch
}

// star matches the '*' or "**" at p[pi] and the rest of p against t[ti:].
func star(p, t string, pi, ti int) wmResult {
	start := pi
	pi++
	slashes := false
	if pi < len(p) && p[pi] == '*' {
		for pi < len(p) && p[pi] == '*' {
			pi++
		}
		before := start == 0 || p[start-1] == '/'
		after := pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == '/')
		if before && after {
			// "**/" may also match no directory at all.
			if pi < len(p) && p[pi] == '/' && wildmatchAt(p, t, pi+1, ti) == wmMatch {
				return wmMatch
			}
			slashes = true
		}
	}
	if pi == len(p) {
		if !slashes && indexByteFrom(t, ti, '/') >= 0 {
			return wmAbortToStar
		}
		return wmMatch
	}
	for ; ti <= len(t); ti++ {
		if r := wildmatchAt(p, t, pi, ti); r != wmNoMatch {
			if !slashes || r != wmAbortToStar {
				return r
			}
		}
		if ti < len(t) && t[ti] == '/' && !slashes {
			return wmAbortToStar
		}
	}
	return wmAbortAll
}

func indexByteFrom(s string, from int, c byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// bracket matches c against the bracket expression opening at p[pi]. It
// returns the index of the closing ']', whether c is in the set, and false
// as valid if the expression is not closed.
func bracket(p string, pi int, c byte) (end int, in, valid bool) {
	i := pi + 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	var prev byte
	for first := true; ; first = false {
		if i >= len(p) {
			return 0, false, false
		}
		ch := p[i]
		switch {
		case ch == ']' && !first:
			return i, in != negate, true
		case ch == '\\':
			i++
			if i >= len(p) {
				return 0, false, false
			}
			ch = p[i]
			in = in || ch == c
		case ch == '-' && prev != 0 && i+1 < len(p) && p[i+1] != ']':
			i++
			hi := p[i]
			if hi == '\\' {
				i++
				if i >= len(p) {
					return 0, false, false
				}
				hi = p[i]
			}
			in = in || (prev <= c && c <= hi)
			ch = 0
		case ch == '[' && i+1 < len(p) && p[i+1] == ':':
			j, class, ok := classAt(p, i, c)
			switch {
			case !ok:
				return 0, false, false
			case j < 0: // not a class name: a plain '['
				in = in || c == '['
			default:
				in = in || class
				i, ch = j, 0
			}
		default:
			in = in || ch == c
		}
		prev = ch
		i++
	}
}

// classAt reads the "[:name:]" at p[i] and says whether c is in the class.
// j is the index of its closing ']', or -1 if p[i] opens no class name
// (no ":]" before the next ']'); ok is false if the bracket expression
// is not closed or the name is unknown.
func classAt(p string, i int, c byte) (j int, in, ok bool) {
	j = i + 2
	for j < len(p) && p[j] != ']' {
		j++
	}
	if j >= len(p) {
		return 0, false, false
	}
	if j-i < 3 || p[j-1] != ':' {
		return -1, false, true
	}
	in, ok = posixClass(p[i+2:j-1], c)
	return j, in, ok
}

// posixClass reports whether c is in the [:name:] class; ok is false for an
// unknown name.
func posixClass(name string, c byte) (in, ok bool) {
	lower := 'a' <= c && c <= 'z'
	upper := 'A' <= c && c <= 'Z'
	digit := '0' <= c && c <= '9'
	graph := 0x21 <= c && c <= 0x7e
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return graph, true
	case "lower":
		return lower, true
	case "print":
		return graph || c == ' ', true
	case "punct":
		return graph && !lower && !upper && !digit, true
	case "space": // git's: no \v or \f
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F'), true
	}
	return false, false
}
