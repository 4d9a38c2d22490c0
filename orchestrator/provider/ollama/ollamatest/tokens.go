package ollamatest

import (
	"math"
	"unicode/utf8"
)

// The fake's tokenizer. By default it follows one fixed rule, the estimate
// lathe itself makes: rendered prompts and tool calls count 4 bytes a token,
// rounded up, and text streams one SplitPieces piece a token. A density
// (WithBytesPerToken, Model.BytesPerToken) replaces that rule with b bytes
// a token for all three, as a real tokenizer with its own density would
// count: 1.9 to 3 bytes a token on file listings, logs and digits.

// tokensAt counts the tokens of n bytes at density b (0: the fixed rule,
// 4 bytes a token), rounded up.
func tokensAt(n int, b float64) int {
	if b <= 0 {
		return tokensOf(n)
	}
	return int(math.Ceil(float64(n)/b - 1e-9))
}

// wholeTokensAt counts the whole tokens n bytes make at density b, rounded
// down: the tokens a common prefix of n bytes holds.
func wholeTokensAt(n int, b float64) int {
	if b <= 0 {
		return n / 4
	}
	return int(math.Floor(float64(n)/b + 1e-9))
}

// CountTokens counts the tokens of text s for a tokenizer of b bytes a
// token (0: the fixed rule, 4), rounded up, whose digits and ASCII
// punctuation count at dense bytes a token instead (0: at b, as the rest).
// Real tokenizers read prose and code at 3.5 to 4.5 bytes a token, and
// numbered file names, logs, hashes and digits at 1 to 2.5: a listing
// of data_001.log files comes to about 2.2 bytes a token where the
// prompt around it reads at 4.
func CountTokens(s string, b, dense float64) int {
	if dense <= 0 {
		return tokensAt(len(s), b)
	}
	return int(math.Ceil(denseTokens(s, b, dense) - 1e-9))
}

// WholeTokens counts the whole tokens of s, rounded down: the tokens a
// common prefix s holds (see CountTokens).
func WholeTokens(s string, b, dense float64) int {
	if dense <= 0 {
		return wholeTokensAt(len(s), b)
	}
	return int(math.Floor(denseTokens(s, b, dense) + 1e-9))
}

// denseTokens is the tokens of s, its dense bytes at dense, the rest at b.
func denseTokens(s string, b, dense float64) float64 {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf && c > ' ' && !('a' <= c|0x20 && c|0x20 <= 'z') {
			n++
		}
	}
	if b <= 0 {
		b = 4
	}
	return float64(len(s)-n)/b + float64(n)/dense
}

// bytesOfTokens is the fewest bytes that hold n whole tokens at density b.
func bytesOfTokens(n int, b float64) int {
	if b <= 0 {
		return 4 * n
	}
	return int(math.Ceil(float64(n)*b - 1e-9))
}

// SplitTokens cuts s into the chunks the fake streams, one token each, for a
// tokenizer of bytesPerToken bytes a token: each SplitPieces piece of n
// bytes is cut into ceil(n / bytesPerToken) parts of about equal length,
// never inside a UTF-8 sequence (so at most one part a character). Zero
// means SplitPieces, the fixed rule. Joining the chunks gives s back.
func SplitTokens(s string, bytesPerToken float64) []string {
	pieces := SplitPieces(s)
	if bytesPerToken <= 0 {
		return pieces
	}
	var out []string
	for _, p := range pieces {
		out = append(out, cutRunes(p, tokensAt(len(p), bytesPerToken))...)
	}
	return out
}

// cutRunes cuts p into k parts of about equal rune counts (at most one part
// a rune).
func cutRunes(p string, k int) []string {
	runes := utf8.RuneCountInString(p)
	k = min(k, runes)
	if k <= 1 {
		return []string{p}
	}
	out := make([]string, 0, k)
	start, seen, part := 0, 0, 1
	for i := range p { // i: the byte offset of rune number seen
		if seen == part*runes/k {
			out = append(out, p[start:i])
			start = i
			part++
		}
		seen++
	}
	return append(out, p[start:])
}
