package tools

import (
	"bytes"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// literal is text that every match of a regexp contains, so that grep can
// skip, with a fast search, the lines that lack it.
type literal struct {
	s    string
	fold bool // the regexp ignores case: s is lowered, and matches in any case
}

// requiredLiteral returns the longest literal every match of expr must
// contain, or an empty one if it finds none it can use. Case-folded
// literals are used only if they are ASCII, so that they can be compared
// byte by byte.
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

// foldTraps are the non-ASCII runes that fold to ASCII letters: the Kelvin
// sign (k) and the long s (s). Text holding one may match a case-folded
// literal that its lowered bytes do not contain.
func hasFoldTrap(b []byte) bool {
	return bytes.Contains(b, []byte("\u212a")) || bytes.Contains(b, []byte("\u017f"))
}
