package textcall

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

const (
	functionOpen   = "<function="
	functionClose  = "</function>"
	parameterOpen  = "<parameter="
	parameterClose = "</parameter>"
)

// functionAt reads the qwen3-coder function block that starts at s[i]
// ("<function=NAME>", parameters, "</function>"). Only whitespace may stand
// between the parts, and every parameter must be closed. On failure end is
// where reading stopped (past the block when only the name was refused),
// so that the caller skips what it already read.
func functionAt(s string, i int, resolve resolveFunc) (c Call, end int, ok bool) {
	name, j, ok := tagName(s, i+len(functionOpen))
	if !ok {
		return Call{}, j, false
	}
	var args argsBuilder
	for {
		j = skipSpace(s, j)
		switch {
		case strings.HasPrefix(s[j:], functionClose):
			end = j + len(functionClose)
			tool, known := resolve(name)
			if !known || args.dup {
				return Call{}, end, false
			}
			return Call{Name: tool, Arguments: args.object()}, end, true
		case strings.HasPrefix(s[j:], parameterOpen):
			key, k, ok := tagName(s, j+len(parameterOpen))
			if !ok {
				return Call{}, k, false
			}
			n := strings.Index(s[k:], parameterClose)
			if n < 0 {
				return Call{}, len(s), false
			}
			args.add(key, parameterValue(s[k:k+n]))
			j = k + n + len(parameterClose)
		default:
			return Call{}, j, false
		}
	}
}

// tagName reads the name that ends a "<function=" or "<parameter=" tag:
// the text up to '>' on the same line, trimmed and not empty. It returns
// the index past the '>', or where reading stopped.
func tagName(s string, i int) (name string, end int, ok bool) {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '>':
			name = strings.TrimSpace(s[i:j])
			return name, j + 1, name != ""
		case '\n', '<':
			return "", j, false
		}
	}
	return "", len(s), false
}

// parameterValue turns the text of a parameter into JSON: one leading and
// one trailing newline go, the rest stays verbatim as a string, except
// that text that is itself a JSON object or array stays JSON.
func parameterValue(text string) string {
	text = cutNewline(text)
	if t := strings.TrimSpace(text); t != "" && (t[0] == '{' || t[0] == '[') {
		if v, ok := compact([]byte(t)); ok {
			return string(v)
		}
	}
	return quote(text)
}

// cutNewline removes one newline ("\n" or "\r\n") from each end of text.
func cutNewline(text string) string {
	for _, nl := range []string{"\r\n", "\n"} {
		if t, ok := strings.CutPrefix(text, nl); ok {
			text = t
			break
		}
	}
	for _, nl := range []string{"\r\n", "\n"} {
		if t, ok := strings.CutSuffix(text, nl); ok {
			return t
		}
	}
	return text
}

// quote returns s as a JSON string, leaving <, > and & as they are.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// argsBuilder writes a JSON object member by member, in order.
type argsBuilder struct {
	b    strings.Builder
	keys []string
	dup  bool
}

// add appends key with value, a JSON value. A repeated key marks the
// object as ambiguous.
func (a *argsBuilder) add(key, value string) {
	if slices.Contains(a.keys, key) {
		a.dup = true
	}
	a.keys = append(a.keys, key)
	if a.b.Len() > 0 {
		a.b.WriteByte(',')
	}
	a.b.WriteString(quote(key))
	a.b.WriteByte(':')
	a.b.WriteString(value)
}

func (a *argsBuilder) object() json.RawMessage {
	return json.RawMessage("{" + a.b.String() + "}")
}
