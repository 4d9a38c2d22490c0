package codeindex

import (
	"strings"
	"unicode"
)

// Words are the words a chunk is found by in a keyword search, as one
// text for the full-text index: each identifier of its path, symbol and
// text as written and, when it is made of several, each of its parts
// ("parseConfig" gives "parseConfig parse Config"; "max_chunk_lines" gives
// "max_chunk_lines max chunk lines"), so that a query for "config" finds
// it.
func Words(c Chunk) string {
	var b strings.Builder
	for _, s := range []string{c.Path, c.Symbol, c.Text} {
		for _, w := range identifiers(s) {
			writeWord(&b, w)
			if parts := splitIdentifier(w); len(parts) > 1 {
				for _, p := range parts {
					writeWord(&b, p)
				}
			}
		}
	}
	return b.String()
}

func writeWord(b *strings.Builder, w string) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(w)
}

// identifiers are the runs of letters, digits and underscores in s.
func identifiers(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

// splitIdentifier cuts an identifier at underscores and where its case
// changes: "parseHTTPRequest" is "parse", "HTTP", "Request".
func splitIdentifier(id string) []string {
	var parts []string
	for _, piece := range strings.Split(id, "_") {
		rs := []rune(piece)
		start := 0
		for i := 1; i < len(rs); i++ {
			lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
			acronymEnd := i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1])
			if lowerToUpper || acronymEnd {
				parts = append(parts, string(rs[start:i]))
				start = i
			}
		}
		if start < len(rs) {
			parts = append(parts, string(rs[start:]))
		}
	}
	return parts
}

// queryWords are the words a keyword search looks for: the query's
// identifiers and their parts, each once, at most 32.
func queryWords(q string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		w = strings.ToLower(w)
		if w != "" && !seen[w] && len(out) < 32 {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, id := range identifiers(q) {
		add(id)
		for _, p := range splitIdentifier(id) {
			add(p)
		}
	}
	return out
}

// keywords are the words of a query worth a keyword search: not the
// short and common English ones, which most chunks hold ("the", "how").
func keywords(words []string) []string {
	var out []string
	for _, w := range words {
		if len(w) > 2 && !common[w] {
			out = append(out, w)
		}
	}
	return out
}

var common = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "how": true, "what": true, "why": true, "who": true,
	"was": true, "were": true, "are": true, "does": true, "did": true, "this": true, "that": true, "you": true,
	"not": true, "from": true, "but": true, "can": true, "all": true, "any": true, "has": true, "have": true,
	"its": true, "our": true, "out": true, "into": true, "when": true, "where": true, "which": true, "about": true,
	"code": true, "find": true, "function": true, "file": true,
}
