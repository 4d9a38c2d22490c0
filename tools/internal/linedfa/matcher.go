package linedfa

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
)

// maxTable bounds a Matcher's transition table, in entries of 4 bytes. A
// pattern that needs more states than fit (rare: a counted repetition of a
// class such as (a|b)*a(a|b){20}) has the cache cleared and the line
// started again; a line that fills the table twice is matched by slow.
const maxTable = 1 << 19

// Transition table entries: the offset of the next state's row (> 0), or
// one of these.
const (
	tUnknown  = 0  // not computed yet
	tMatch    = -1 // the line matches
	tDead     = -2 // the line cannot match
	tEOLMatch = -3 // the byte is '\n' and the line matches
	tCR       = -4 // the byte is '\r'
	tHigh     = -5 // the byte starts a non-ASCII rune
)

// State flags: what the text before the state's position says about the
// empty-width assertions there.
const (
	flagLineStart = 1 << iota // nothing of the line is read yet
	flagWord                  // the last rune read is a word character
)

// state is one state of the automaton: the instructions of the program
// that are waiting for the next rune (or for an empty-width assertion),
// and the flags.
type state struct {
	insts []uint32 // sorted: InstRune*, InstEmptyWidth and InstMatch only
	flags uint8
	eol   int8          // whether the line matches if it ends here: 0 unknown, 1 yes, -1 no
	high  map[int]int32 // transitions on non-ASCII classes
}

// Matcher runs a Prog. It caches the states it has built, so it should be
// kept for as long as the pattern is used; it must not be used by two
// goroutines at once.
type Matcher struct {
	p      *Prog
	slow   func(line []byte) bool
	stride int
	limit  int     // the most entries trans may hold
	trans  []int32 // one row of stride entries per state; row 0 is unused
	states []state
	cache  map[string]int32 // insts and flags → row offset
	start  int32

	// Scratch space.
	seen   []bool
	marked []uint32
	stack  []uint32
	set    []uint32
	key    []byte
}

// NewMatcher returns a Matcher for p. slow must say whether a line
// matches; it is used only for lines that need more states than the
// Matcher may cache.
func (p *Prog) NewMatcher(slow func(line []byte) bool) *Matcher {
	m := &Matcher{p: p, slow: slow, stride: p.nascii + nspecial, limit: maxTable, seen: make([]bool, len(p.insts))}
	m.reset()
	return m
}

// reset empties the cache.
func (m *Matcher) reset() {
	m.trans = make([]int32, m.stride, 64*m.stride)
	m.states = make([]state, 1, 64)
	m.cache = map[string]int32{}
	m.set = m.follow(m.set[:0], m.p.start)
	m.start, _ = m.intern(m.set, m.p.startFlags)
}

// step returns the transition of the state at row s on the rune class c,
// computing it if needed. It returns tUnknown if the cache had to be
// cleared: s is gone.
func (m *Matcher) step(s int32, c int) int32 {
	st := &m.states[int(s)/m.stride]
	high := c >= m.p.nascii
	if high {
		if t, ok := st.high[c]; ok {
			return t
		}
	} else if c == int(m.p.crClass) {
		if t := m.trans[int(s)+c]; t != tUnknown {
			return t
		}
	}
	word := m.p.classWord[c]
	insts, matched := m.closure(st.insts, emptyBefore(st.flags, word, false))
	if matched {
		return m.remember(s, c, tMatch)
	}
	r := m.p.classRune[c]
	next := m.set[:0]
	for _, pc := range insts {
		if in := &m.p.insts[pc]; in.Op != syntax.InstEmptyWidth && in.Op != syntax.InstMatch && matches(in, r) {
			next = m.walk(next, in.Out)
		}
	}
	if !m.p.anchored {
		next = m.walk(next, m.p.start)
	}
	m.unmark()
	slices.Sort(next)
	m.set = next
	var t int32
	switch {
	case len(next) == 0:
		t = tDead
	case slices.ContainsFunc(next, func(pc uint32) bool { return m.p.insts[pc].Op == syntax.InstMatch }):
		t = tMatch
	default:
		var flags uint8
		if word && m.p.useWord {
			flags = flagWord
		}
		var ok bool
		if t, ok = m.intern(next, flags); !ok {
			m.reset()
			return tUnknown
		}
	}
	return m.remember(s, c, t)
}

// remember stores the transition t of the state at row s on class c where
// step looks for it.
func (m *Matcher) remember(s int32, c int, t int32) int32 {
	if c < m.p.nascii {
		m.trans[int(s)+c] = t
		return t
	}
	st := &m.states[int(s)/m.stride]
	if st.high == nil {
		st.high = map[int]int32{}
	}
	st.high[c] = t
	return t
}

// eolTransition is the transition of the state at row s on '\n'.
func (m *Matcher) eolTransition(s int32) int32 {
	if m.eolMatch(s) {
		return tEOLMatch
	}
	return m.start
}

// eolMatch reports whether the line matches if it ends at the state at
// row s.
func (m *Matcher) eolMatch(s int32) bool {
	st := &m.states[int(s)/m.stride]
	if st.eol == 0 {
		st.eol = -1
		if _, matched := m.closure(st.insts, emptyBefore(st.flags, false, true)); matched {
			st.eol = 1
		}
	}
	return st.eol > 0
}

// emptyBefore returns the empty-width assertions that hold before a rune
// (a word character if word) or, if eol, at the end of the line.
func emptyBefore(flags uint8, word, eol bool) syntax.EmptyOp {
	var op syntax.EmptyOp
	if flags&flagLineStart != 0 {
		op |= syntax.EmptyBeginLine | syntax.EmptyBeginText
	}
	if eol {
		op |= syntax.EmptyEndLine | syntax.EmptyEndText
	}
	if (flags&flagWord != 0) != word {
		op |= syntax.EmptyWordBoundary
	} else {
		op |= syntax.EmptyNoWordBoundary
	}
	return op
}

// closure follows the empty-width instructions of insts that op allows and
// returns the instructions then waiting for a rune, and whether a match
// was reached.
func (m *Matcher) closure(insts []uint32, op syntax.EmptyOp) ([]uint32, bool) {
	out := append(m.stack[:0], insts...)
	for _, pc := range out {
		m.mark(pc)
	}
	matched := false
	for i := 0; i < len(out); i++ {
		in := &m.p.insts[out[i]]
		switch in.Op {
		case syntax.InstMatch:
			matched = true
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^op == 0 {
				out = m.walk(out, in.Out)
			}
		}
	}
	m.unmark()
	m.stack = out
	return out, matched
}

// follow returns the sorted set of instructions reached from pc without
// consuming a rune or testing an assertion.
func (m *Matcher) follow(set []uint32, pc uint32) []uint32 {
	set = m.walk(set, pc)
	m.unmark()
	slices.Sort(set)
	return set
}

func (m *Matcher) mark(pc uint32) {
	m.seen[pc] = true
	m.marked = append(m.marked, pc)
}

func (m *Matcher) unmark() {
	for _, pc := range m.marked {
		m.seen[pc] = false
	}
	m.marked = m.marked[:0]
}

// walk appends to set the instructions reached from pc that are not
// marked: those that consume a rune, test an assertion or match. It marks
// every instruction it meets; the caller unmarks them.
func (m *Matcher) walk(set []uint32, pc uint32) []uint32 {
	for !m.seen[pc] {
		m.mark(pc)
		in := &m.p.insts[pc]
		switch in.Op {
		case syntax.InstFail:
			return set
		case syntax.InstNop, syntax.InstCapture:
			pc = in.Out
		case syntax.InstAlt, syntax.InstAltMatch:
			set = m.walk(set, in.Out)
			pc = in.Arg
		default:
			return append(set, pc)
		}
	}
	return set
}

// intern returns the row of the state (insts, flags), adding it if new;
// ok is false if the table is full.
func (m *Matcher) intern(insts []uint32, flags uint8) (s int32, ok bool) {
	m.key = append(m.key[:0], flags)
	for _, pc := range insts {
		m.key = binary.LittleEndian.AppendUint32(m.key, pc)
	}
	if s, ok := m.cache[string(m.key)]; ok {
		return s, true
	}
	if len(m.trans)+m.stride > m.limit {
		return 0, false
	}
	s = int32(len(m.trans))
	m.states = append(m.states, state{insts: slices.Clone(insts), flags: flags})
	m.trans = slices.Grow(m.trans, m.stride)[:len(m.trans)+m.stride]
	row := m.trans[s : int(s)+m.stride]
	clear(row)
	row[m.p.nascii+colCR] = tCR
	row[m.p.nascii+colHigh] = tHigh
	m.cache[string(m.key)] = s
	return s, true
}
