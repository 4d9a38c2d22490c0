package lsp

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// spot is a place in a file of the workspace a navigation tool asks
// about: the word there, where it is for people (1-based, the column in
// characters) and for the server (0-based, in UTF-16 units).
type spot struct {
	path      string
	line, col int
	word      string
	pos       protocol.Position
	// moved says why the column asked for was not the one used: it was
	// not on a word.
	moved string
}

func (s spot) String() string { return fmt.Sprintf("%s:%d:%d", s.path, s.line, s.col) }

// lineOf is the line n (0-based) of text without its line break; false
// past the end.
func lineOf(text string, n int) (string, bool) {
	for range n {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			return "", false
		}
		text = text[nl+1:]
	}
	if text == "" && n > 0 {
		return "", false // after the last line break
	}
	if nl := strings.IndexByte(text, '\n'); nl >= 0 {
		text = text[:nl]
	}
	return strings.TrimSuffix(text, "\r"), true
}

// lines counts the lines of text.
func lines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// spotAt is the spot at line and column (1-based, the column in
// characters) of the file at path holding text. A column on no word is
// moved to the nearest word of the line, the next one first; the spot
// says so.
func spotAt(path, text string, line, col int) (spot, error) {
	l, ok := lineOf(text, line-1)
	if !ok || line < 1 {
		return spot{}, fmt.Errorf("%s has %d lines; line %d is not one of them", path, lines(text), line)
	}
	runes := []rune(l)
	if col < 1 || col > len(runes)+1 {
		return spot{}, fmt.Errorf("line %d of %s has %d characters; column %d is not on it", line, path, len(runes), col)
	}
	i := col - 1
	start, end := wordAround(runes, i)
	moved := ""
	if start == end {
		start, end = nearestWord(runes, i)
		if start == end {
			return spot{}, fmt.Errorf("line %d of %s holds no name: %q", line, path, clip(strings.TrimSpace(l), 120))
		}
		moved = fmt.Sprintf("column %d is not on a name", col)
		i = start
	}
	return spot{path: path, line: line, col: i + 1, word: string(runes[start:end]), moved: moved,
		pos: protocol.Position{Line: uint32(line - 1), Character: uint32(units(runes[:i]))}}, nil
}

// spotOf is the spot of name on line (1-based) of the file at path
// holding text: its first occurrence as a whole word, else as part of
// one.
func spotOf(path, text string, line int, name string) (spot, error) {
	l, ok := lineOf(text, line-1)
	if !ok || line < 1 {
		return spot{}, fmt.Errorf("%s has %d lines; line %d is not one of them", path, lines(text), line)
	}
	runes := []rune(l)
	at := wordIndex(runes, []rune(name), 0)
	if at < 0 {
		return spot{}, fmt.Errorf("line %d of %s does not hold %s: %q", line, path, name, clip(strings.TrimSpace(l), 120))
	}
	return spotAt(path, text, line, at+1)
}

// wordIndex is where word first occurs in line from from on, as a whole
// word if it does, else as part of one; -1 when it does not.
func wordIndex(line, word []rune, from int) int {
	part := -1
	for i := from; i+len(word) <= len(line); i++ {
		if string(line[i:i+len(word)]) != string(word) {
			continue
		}
		if (i == 0 || !isWordRune(line[i-1])) && (i+len(word) == len(line) || !isWordRune(line[i+len(word)])) {
			return i
		}
		if part < 0 {
			part = i
		}
	}
	return part
}

// wordAround is the word holding runes[i], or ending just before it;
// start == end when there is none.
func wordAround(runes []rune, i int) (start, end int) {
	if i >= len(runes) || !isWordRune(runes[i]) {
		if i > 0 && i <= len(runes) && isWordRune(runes[i-1]) {
			i--
		} else {
			return i, i
		}
	}
	start, end = i, i
	for start > 0 && isWordRune(runes[start-1]) {
		start--
	}
	for end < len(runes) && isWordRune(runes[end]) {
		end++
	}
	return start, end
}

// nearestWord is the first word after i, else the last before it.
func nearestWord(runes []rune, i int) (start, end int) {
	for j := i; j < len(runes); j++ {
		if isWordRune(runes[j]) {
			return wordAround(runes, j)
		}
	}
	for j := min(i, len(runes)) - 1; j >= 0; j-- {
		if isWordRune(runes[j]) {
			return wordAround(runes, j)
		}
	}
	return i, i
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// units counts the UTF-16 code units of runes, as the protocol counts
// characters.
func units(runes []rune) int {
	n := 0
	for _, r := range runes {
		n += utf16.RuneLen(r)
	}
	return n
}

// charColumn turns a position's character (UTF-16 code units) on line
// (0-based) of text into a column in characters (0-based); the character
// itself when the line is not there.
func charColumn(text string, line, char int) int {
	l, ok := lineOf(text, line)
	if !ok {
		return char
	}
	n, seen := 0, 0
	for _, r := range l {
		if seen >= char {
			break
		}
		seen += utf16.RuneLen(r)
		n++
	}
	return n
}

// lineText is line (0-based) of text trimmed and clipped for a result.
func lineText(text string, line int) string {
	l, _ := lineOf(text, line)
	l = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if r == utf8.RuneError || unicode.IsControl(r) {
			return -1
		}
		return r
	}, l))
	return clip(l, maxLineText)
}

// maxLineText is how much of a location's line a result shows.
const maxLineText = 160
