package tools

import (
	"errors"
	"fmt"
	"strings"
)

// errNoMatch is returned by replaceExact when old does not occur.
var errNoMatch = errors.New("no match")

// ambiguousError is returned by replaceExact and replaceLoose when old
// occurs more than once and replace_all was not asked for.
type ambiguousError struct {
	count int   // occurrences, overlapping ones included
	lines []int // lines of the first few, in the original content
	loose bool  // the occurrences match only ignoring whitespace
}

func (e *ambiguousError) Error() string { return fmt.Sprintf("%d matches", e.count) }

// maxListedLines bounds how many line numbers an edit result lists.
const maxListedLines = 20

// replaceExact replaces old with new in content. Without all, old must occur
// exactly once, counting overlapping occurrences ("aa" occurs twice in
// "aaa"); with all, every non-overlapping occurrence is replaced, as by
// strings.ReplaceAll. It returns the new content and the line numbers, in
// it, where replacements start. old must not be empty.
func replaceExact(content, old, new string, all bool) (string, []int, error) {
	first := strings.Index(content, old)
	if first < 0 {
		return content, nil, errNoMatch
	}
	if !all {
		if n, lines := occurrences(content, old, first); n > 1 {
			return content, nil, &ambiguousError{count: n, lines: lines}
		}
		out := content[:first] + new + content[first+len(old):]
		return out, []int{lineAt(out, first)}, nil
	}
	var b strings.Builder
	var lines []int
	line, done := 1, 0
	for i := first; i >= 0; i = strings.Index(content[done:], old) {
		at := done + i
		b.WriteString(content[done:at])
		line += strings.Count(content[done:at], "\n")
		lines = append(lines, line)
		b.WriteString(new)
		line += strings.Count(new, "\n")
		done = at + len(old)
	}
	b.WriteString(content[done:])
	return b.String(), lines, nil
}

// occurrences counts old in content, overlapping ones included, starting
// from first, and returns the lines of the first few.
func occurrences(content, old string, first int) (int, []int) {
	n, lines := 0, []int(nil)
	for i := first; i >= 0; {
		n++
		if len(lines) < maxListedLines {
			lines = append(lines, lineAt(content, i))
		}
		j := strings.Index(content[i+1:], old)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return n, lines
}

// lineAt returns the 1-based line number of byte offset i in s.
func lineAt(s string, i int) int { return 1 + strings.Count(s[:i], "\n") }

// edit is a change applyEdit worked out.
type edit struct {
	out   string    // the new content
	lines []int     // lines of out where the replacements start
	loose looseEdit // set when old matched only ignoring whitespace
}

// applyEdit replaces old with new in content, made tolerant of what models
// get wrong. It tries, in turn, until one finds old: replaceExact; the
// same with old and new converted to \r\n, when old, written with \n, does
// not occur in content that uses \r\n; replaceLoose. An ambiguous match
// stops the search. On error the edit is empty: there is nothing to write.
func applyEdit(content, old, new string, all bool) (edit, error) {
	out, lines, err := replaceExact(content, old, new, all)
	if errors.Is(err, errNoMatch) && strings.Contains(content, "\r\n") &&
		strings.Contains(old, "\n") && !strings.Contains(old, "\r") {
		out, lines, err = replaceExact(content, toCRLF(old), toCRLF(new), all)
	}
	if !errors.Is(err, errNoMatch) {
		if err != nil {
			return edit{}, err
		}
		return edit{out: out, lines: lines}, nil
	}
	out, lines, loose, err := replaceLoose(content, old, new, all)
	if err != nil {
		return edit{}, err
	}
	return edit{out: out, lines: lines, loose: loose}, nil
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
