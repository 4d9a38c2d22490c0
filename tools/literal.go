package tools

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// literal is text that every match of a regexp contains, so that grep can
// skip, with a fast bytes.Index, files and lines that lack it.
type literal struct {
	s    string
	fold bool // the regexp ignores case: look for s, lowered, in lowered text
}

// requiredLiteral returns the longest literal every match of expr must
// contain, or an empty one if it finds none it can use. Case-folded
// literals are used only if they are ASCII, so that lowering the text
// byte by byte keeps offsets.
func requiredLiteral(expr string) literal {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return literal{}
	}
	lit := required(re.Simplify())
	if strings.ContainsRune(lit.s, utf8.RuneError) || (lit.fold && !isASCII(lit.s)) {
		return literal{}
	}
	if lit.fold {
		lit.s = strings.ToLower(lit.s)
	}
	return lit
}

func required(re *syntax.Regexp) literal {
	switch re.Op {
	case syntax.OpLiteral:
		return literal{s: string(re.Rune), fold: re.Flags&syntax.FoldCase != 0}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		return requiredInConcat(re.Sub)
	}
	return literal{}
}

// requiredInConcat joins runs of adjacent literals and returns the longest
// literal among the runs and what the other parts require.
func requiredInConcat(subs []*syntax.Regexp) literal {
	var best, run literal
	consider := func(l literal) {
		if len(l.s) > len(best.s) || (len(l.s) == len(best.s) && best.fold && !l.fold) {
			best = l
		}
	}
	for _, sub := range subs {
		if sub.Op == syntax.OpLiteral {
			l := required(sub)
			if run.s != "" && run.fold == l.fold {
				run.s += l.s
			} else {
				consider(run)
				run = l
			}
			continue
		}
		consider(run)
		run = literal{}
		consider(required(sub))
	}
	consider(run)
	return best
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerASCII writes b with ASCII letters lowered into dst's storage. It
// works on eight bytes at a time: for each byte below 0x80, adding 0x80-'A'
// to its low seven bits sets the high bit if it is >= 'A', adding 0x80-'Z'-1
// if it is > 'Z'; the bytes with the first but not the second are upper-case
// letters, which get 0x20 (their high bit shifted down twice) added.
func lowerASCII(dst, b []byte) []byte {
	dst = append(dst[:0], b...)
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		w := binary.LittleEndian.Uint64(dst[i:])
		low := w &^ highs
		upper := (low + (0x80-'A')*ones) &^ (low + (0x80-'Z'-1)*ones) &^ w & highs
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(dst); i++ {
		if c := dst[i]; 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// foldTraps are the non-ASCII runes that fold to ASCII letters: the Kelvin
// sign (k) and the long s (s). Text holding one may match a case-folded
// literal that its lowered bytes do not contain.
func hasFoldTrap(b []byte) bool {
	return bytes.Contains(b, []byte("\u212a")) || bytes.Contains(b, []byte("\u017f"))
}
