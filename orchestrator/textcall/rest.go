package textcall

import "strings"

const spaces = " \t\r\n\f\v"

// cut returns s without the spans. The whitespace around each seam becomes
// one blank line if it held two newlines or more, one newline if it held
// one, a space if it held other whitespace, and nothing otherwise; the
// result is trimmed. Text away from the seams is left as it was.
func cut(s string, spans []span) string {
	var b strings.Builder
	seam := "" // the whitespace removed since the last text kept
	from := 0
	for k := 0; k <= len(spans); k++ {
		to := len(s)
		if k < len(spans) {
			to = spans[k].start
		}
		text := s[from:to]
		if k > 0 {
			kept := strings.TrimLeft(text, spaces)
			seam += text[:len(text)-len(kept)]
			text = kept
		}
		tail := ""
		if k < len(spans) {
			kept := strings.TrimRight(text, spaces)
			tail, text = text[len(kept):], kept
			from = spans[k].end
		}
		if text != "" {
			if b.Len() > 0 {
				b.WriteString(joiner(seam))
			}
			b.WriteString(text)
			seam = ""
		}
		seam += tail
	}
	return strings.TrimSpace(b.String())
}

// joiner is what replaces the whitespace ws found at a seam.
func joiner(ws string) string {
	nl := "\n"
	if strings.Contains(ws, "\r\n") {
		nl = "\r\n"
	}
	switch n := strings.Count(ws, "\n"); {
	case n >= 2:
		return nl + nl
	case n == 1:
		return nl
	case ws != "":
		return " "
	}
	return ""
}
