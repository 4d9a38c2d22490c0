package config

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/pelletier/go-toml/v2/unstable"
)

// duplicate reports whether line of a TOML document sets a key, or opens
// a table, that an earlier line did: the dotted key, and the line that
// set it first.
func duplicate(data []byte, line int) (key string, first int, table, ok bool) {
	var p unstable.Parser
	p.Reset(data)
	type setting struct {
		key   string
		table bool
	}
	seen := map[setting]int{}
	var current []string
	for p.NextExpression() {
		e := p.Expression()
		var s setting
		switch e.Kind {
		case unstable.Table:
			current = keyParts(e.Key())
			s = setting{strings.Join(current, "."), true}
		case unstable.KeyValue:
			s = setting{strings.Join(append(current[:len(current):len(current)], keyParts(e.Key())...), "."), false}
		case unstable.ArrayTable:
			current = keyParts(e.Key()) // [[x]] repeats by design: each has keys of its own
			clear(seen)
			continue
		default:
			continue
		}
		at, _ := start(&p, e)
		earlier, dup := seen[s]
		if dup && at == line {
			return s.key, earlier, s.table, true
		}
		if !dup {
			seen[s] = at
		}
	}
	return "", 0, false, false
}

// quoteHint returns, when the value at line and col of a TOML document is
// a bare word where a value belongs (after "=", "[" or ","), the line as
// it should be written: `model = "qwen3"`, or the word quoted in a list;
// "" otherwise.
func quoteHint(data []byte, line, col int) string {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return ""
	}
	text := string(lines[line-1])
	i := min(max(col-1, 0), len(text))
	isWord := func(r byte) bool {
		return r < 0x80 && (unicode.IsLetter(rune(r)) || unicode.IsDigit(rune(r)) || strings.IndexByte("_-.:/+@", r) >= 0)
	}
	from, to := i, i
	for from > 0 && isWord(text[from-1]) {
		from--
	}
	for to < len(text) && isWord(text[to]) {
		to++
	}
	word := text[from:to]
	if word == "" || !unicode.IsLetter(rune(word[0])) {
		return ""
	}
	switch word {
	case "true", "false", "inf", "nan":
		return ""
	}
	before := strings.TrimRightFunc(text[:from], unicode.IsSpace)
	switch {
	case strings.HasSuffix(before, "="):
		key := strings.TrimSpace(strings.TrimSuffix(before, "="))
		return fmt.Sprintf("%s = %q%s", key, word, text[to:])
	case strings.HasSuffix(before, "["), strings.HasSuffix(before, ","):
		return fmt.Sprintf("%q", word)
	}
	return ""
}
