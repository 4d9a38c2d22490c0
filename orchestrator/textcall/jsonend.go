package textcall

// maxDepth is the deepest nesting jsonEnd accepts: the limit encoding/json
// applies, so that what jsonEnd accepts encoding/json can decode.
const maxDepth = 10000

// jsonEnd reads the JSON value that starts at s[i]. It returns the index
// just past the value and true; or, when no valid value starts there, the
// index of the byte where the text stopped being JSON (len(s) when it was
// cut short) and false. It accepts exactly what encoding/json accepts.
func jsonEnd(s string, i int) (int, bool) {
	r := jsonReader{s: s, pos: i}
	ok := r.value(0)
	return r.pos, ok
}

// jsonReader is a recursive-descent JSON syntax checker over s from pos.
type jsonReader struct {
	s   string
	pos int
}

func (r *jsonReader) value(depth int) bool {
	if r.pos >= len(r.s) {
		return false
	}
	switch c := r.s[r.pos]; {
	case c == '{':
		return r.object(depth + 1)
	case c == '[':
		return r.array(depth + 1)
	case c == '"':
		return r.str()
	case c == '-' || isDigit(c):
		return r.number()
	case c == 't':
		return r.word("true")
	case c == 'f':
		return r.word("false")
	case c == 'n':
		return r.word("null")
	}
	return false
}

func (r *jsonReader) object(depth int) bool {
	if depth > maxDepth {
		return false
	}
	r.pos++
	r.space()
	if r.at('}') {
		r.pos++
		return true
	}
	for {
		if !r.at('"') || !r.str() {
			return false
		}
		r.space()
		if !r.at(':') {
			return false
		}
		r.pos++
		r.space()
		if !r.value(depth) {
			return false
		}
		if done, ok := r.next('}'); done || !ok {
			return ok
		}
	}
}

func (r *jsonReader) array(depth int) bool {
	if depth > maxDepth {
		return false
	}
	r.pos++
	r.space()
	if r.at(']') {
		r.pos++
		return true
	}
	for {
		if !r.value(depth) {
			return false
		}
		if done, ok := r.next(']'); done || !ok {
			return ok
		}
	}
}

// next reads what follows a member of a container: the closing byte
// (done) or a comma followed by whitespace (not done). ok is false for
// anything else.
func (r *jsonReader) next(closing byte) (done, ok bool) {
	r.space()
	switch {
	case r.at(closing):
		r.pos++
		return true, true
	case r.at(','):
		r.pos++
		r.space()
		return false, true
	}
	return false, false
}

func (r *jsonReader) str() bool {
	r.pos++
	for r.pos < len(r.s) {
		switch c := r.s[r.pos]; {
		case c == '"':
			r.pos++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if !r.escape() {
				return false
			}
		default:
			r.pos++
		}
	}
	return false
}

func (r *jsonReader) escape() bool {
	r.pos++
	if r.pos >= len(r.s) {
		return false
	}
	switch r.s[r.pos] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		r.pos++
		return true
	case 'u':
		r.pos++
		for range 4 {
			if r.pos >= len(r.s) || !isHex(r.s[r.pos]) {
				return false
			}
			r.pos++
		}
		return true
	}
	return false
}

func (r *jsonReader) number() bool {
	if r.at('-') {
		r.pos++
	}
	switch {
	case r.at('0'):
		r.pos++
	case r.pos < len(r.s) && r.s[r.pos] >= '1' && r.s[r.pos] <= '9':
		r.digits()
	default:
		return false
	}
	if r.at('.') {
		r.pos++
		if !r.digits() {
			return false
		}
	}
	if r.at('e') || r.at('E') {
		r.pos++
		if r.at('+') || r.at('-') {
			r.pos++
		}
		if !r.digits() {
			return false
		}
	}
	return true
}

// digits reads a run of digits and reports whether there was at least one.
func (r *jsonReader) digits() bool {
	start := r.pos
	for r.pos < len(r.s) && isDigit(r.s[r.pos]) {
		r.pos++
	}
	return r.pos > start
}

func (r *jsonReader) word(w string) bool {
	for k := range len(w) {
		if r.pos >= len(r.s) || r.s[r.pos] != w[k] {
			return false
		}
		r.pos++
	}
	return true
}

func (r *jsonReader) space() {
	for r.pos < len(r.s) && isJSONSpace(r.s[r.pos]) {
		r.pos++
	}
}

func (r *jsonReader) at(c byte) bool { return r.pos < len(r.s) && r.s[r.pos] == c }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
