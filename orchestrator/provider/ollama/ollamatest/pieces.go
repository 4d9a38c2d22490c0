package ollamatest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxWordRunes is the longest word piece; longer words are cut, as a
// tokenizer cuts "authentication" into several tokens.
const maxWordRunes = 6

// SplitPieces cuts s into token-like pieces, the way the fake streams text:
// a run of newlines; a word of up to 6 letters, digits or underscores with at
// most one leading space; or one other character with at most one leading
// space (" +", "!", " 😊"). Runs of several spaces are a piece of their own.
// Joining the pieces gives s back, and no piece splits a UTF-8 sequence.
func SplitPieces(s string) []string {
	var pieces []string
	for s != "" {
		n := pieceLen(s)
		pieces = append(pieces, s[:n])
		s = s[n:]
	}
	return pieces
}

func pieceLen(s string) int {
	if s[0] == '\n' {
		return len(s) - len(strings.TrimLeft(s, "\n"))
	}
	if s[0] == ' ' || s[0] == '\t' {
		spaces := len(s) - len(strings.TrimLeft(s, " \t"))
		rest := s[spaces:]
		if spaces > 1 || rest == "" || rest[0] == '\n' {
			// An indent: the spaces, less the one that leads the next word.
			return max(1, spaces-boolInt(rest != "" && rest[0] != '\n'))
		}
		return 1 + wordOrSymbolLen(rest)
	}
	return wordOrSymbolLen(s)
}

// wordOrSymbolLen returns the length of the word or single character that
// starts s.
func wordOrSymbolLen(s string) int {
	r, size := utf8.DecodeRuneInString(s)
	if !isWordRune(r) {
		return size
	}
	n := 0
	for runes := 0; n < len(s) && runes < maxWordRunes; runes++ {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !isWordRune(r) {
			break
		}
		n += size
	}
	return n
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
