package textcall

import "strings"

// fence is a fenced code block.
type fence struct {
	start, end int    // from the start of the opening line to the end of the closing one
	lang       string // the first word of the info string, lower-cased
	body       string
}

// fenceAt returns the fenced code block whose opening run of backticks or
// tildes starts at s[i], much as CommonMark reads it: at least three at
// the start of a line, closed by a line holding a run at least as long or
// else by the end of s. Unlike CommonMark it takes any indentation, since
// models indent fences inside list items.
func fenceAt(s string, i int) (fence, bool) {
	start := i
	for start > 0 && (s[start-1] == ' ' || s[start-1] == '\t') {
		start--
	}
	if start > 0 && s[start-1] != '\n' {
		return fence{}, false
	}
	mark := s[i]
	n := skipWhile(s, i, func(c byte) bool { return c == mark }) - i
	if n < 3 {
		return fence{}, false
	}
	opening := lineEnd(s, i)
	info := strings.TrimSpace(s[i+n : opening])
	if mark == '`' && strings.Contains(info, "`") {
		return fence{}, false
	}
	f := fence{start: start, end: len(s)}
	if words := strings.Fields(info); len(words) > 0 {
		f.lang = strings.ToLower(words[0])
	}
	from := min(opening+1, len(s))
	for j := from; j < len(s); j = lineEnd(s, j) + 1 {
		if closesFence(s[j:lineEnd(s, j)], mark, n) {
			f.end, f.body = lineEnd(s, j), s[from:j]
			return f, true
		}
	}
	f.body = s[from:]
	return f, true
}

// closesFence reports whether line closes a fence opened by n marks.
func closesFence(line string, mark byte, n int) bool {
	trimmed := strings.TrimLeft(line, " \t")
	run := skipWhile(trimmed, 0, func(c byte) bool { return c == mark })
	return run >= n && strings.TrimSpace(trimmed[run:]) == ""
}

// lineEnd returns the index of the newline that ends the line holding
// s[i], or len(s).
func lineEnd(s string, i int) int {
	if n := strings.IndexByte(s[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(s)
}

// callLanguage reports whether a fence of language lang may hold calls:
// no language, JSON, XML, plain text or a tool-call label. Any other
// language is code, and what code holds is never a call.
func callLanguage(lang string) bool {
	switch lang {
	case "", "json", "jsonc", "json5", "xml", "text", "plaintext", "txt",
		"tool_call", "tool_calls", "toolcall", "tool", "tools", "function", "function_call", "functions":
		return true
	}
	return false
}

// inlineCodeEnd returns the index past the inline code span whose opening
// backticks start at s[i]: the next run of as many backticks on the same
// line. Without one, the backticks are plain text and it returns the index
// past them.
func inlineCodeEnd(s string, i int) int {
	open := skipWhile(s, i, func(c byte) bool { return c == '`' })
	for j := open; j < len(s) && s[j] != '\n'; {
		if s[j] != '`' {
			j++
			continue
		}
		run := skipWhile(s, j, func(c byte) bool { return c == '`' })
		if run-j == open-i {
			return run
		}
		j = run
	}
	return open
}
