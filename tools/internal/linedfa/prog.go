// Package linedfa finds the lines of a text that a regular expression
// matches, with a deterministic automaton built lazily as the text is read.
//
// It gives the same answers as Go's regexp package applied to each line by
// itself (without its "\n" and a "\r" before it), so ^ and $ match at the
// ends of each line, and it shares that package's syntax (RE2, Perl flags)
// and its handling of invalid UTF-8 (each bad byte is one U+FFFD). It is
// several times faster because it looks at each byte once, whatever the
// pattern: a state of the automaton is a set of states of the regexp's
// program, computed the first time it is needed and cached.
package linedfa

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Prog is a compiled pattern. It is never changed, so one Prog can serve
// any number of Matchers at once.
type Prog struct {
	insts    []syntax.Inst
	start    uint32
	anchored bool // every match starts at the start of a line

	// Whether states must record that they are at the start of a line and
	// whether the last rune was a word character: only if some assertion
	// asks.
	startFlags uint8
	useWord    bool
	skip       *skipper // nil if the start state cannot be skipped over

	// Runes are split into classes that every instruction treats alike.
	// The classes of ASCII runes are numbered first, from 0 to nascii-1;
	// byteClass maps a byte to its class, or, for '\n', '\r' and the bytes
	// that start a non-ASCII rune, to the special columns after them.
	byteClass [256]uint8
	nascii    int
	crClass   uint8
	high      []rune // the first rune of each non-ASCII class, sorted
	classRune []rune // a rune of each class, ASCII classes first
	classWord []bool // whether the class's runes are word characters (\b)
}

// Columns of a state's row after its ASCII classes.
const (
	colNL   = iota // '\n': the end of a line
	colCR          // '\r': the end of a line if one follows, else a rune
	colHigh        // a byte >= 0x80: decode the rune and look it up
	nspecial
)

// Compile parses expr with the syntax regexp.Compile accepts.
func Compile(expr string) (*Prog, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	p := &Prog{insts: prog.Inst, start: uint32(prog.Start)}
	p.anchored = prog.StartCond()&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0
	for _, in := range p.insts {
		if in.Op != syntax.InstEmptyWidth {
			continue
		}
		op := syntax.EmptyOp(in.Arg)
		if op&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0 {
			p.startFlags = flagLineStart
		}
		if op&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			p.useWord = true
		}
	}
	p.classify()
	p.skip = newSkipper(p)
	return p, nil
}

// classify splits the runes into classes at every bound an instruction or
// a word boundary draws.
func (p *Prog) classify() {
	bounds := []rune{0, '\n', '\n' + 1, '\r', '\r' + 1, utf8.RuneSelf, '0', '9' + 1, 'A', 'Z' + 1, '_', '_' + 1, 'a', 'z' + 1}
	for _, in := range p.insts {
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1:
			if len(in.Rune) == 1 {
				r := in.Rune[0]
				bounds = append(bounds, r, r+1)
				if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
					for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
						bounds = append(bounds, f, f+1)
					}
				}
				continue
			}
			for i := 0; i+1 < len(in.Rune); i += 2 {
				bounds = append(bounds, in.Rune[i], in.Rune[i+1]+1)
			}
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	if bounds[len(bounds)-1] > unicode.MaxRune {
		bounds = bounds[:len(bounds)-1]
	}
	split := slices.Index(bounds, utf8.RuneSelf)
	p.nascii = split
	p.classRune = bounds
	p.high = bounds[split:]
	p.classWord = make([]bool, len(bounds))
	for i, r := range bounds {
		p.classWord[i] = syntax.IsWordChar(r)
	}
	c := 0
	for b := range utf8.RuneSelf {
		if c+1 < split && rune(b) >= bounds[c+1] {
			c++
		}
		p.byteClass[b] = uint8(c)
	}
	p.crClass = p.byteClass['\r']
	p.byteClass['\n'] = uint8(split + colNL)
	p.byteClass['\r'] = uint8(split + colCR)
	for b := utf8.RuneSelf; b < 256; b++ {
		p.byteClass[b] = uint8(split + colHigh)
	}
}

// runeClass returns the class of a non-ASCII rune.
func (p *Prog) runeClass(r rune) int {
	i, found := slices.BinarySearch(p.high, r)
	if !found {
		i--
	}
	return p.nascii + i
}

// matches reports whether the instruction in consumes the rune r.
func matches(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return in.MatchRune(r)
}
