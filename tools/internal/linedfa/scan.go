package linedfa

import (
	"bytes"
	"unicode/utf8"
)

// Scan calls emit with the bounds of each line of text that matches, in
// order. Lines end at '\n', which is not part of one, nor is a '\r' before
// it or at the end of text; text after the last '\n' is a line if it is
// not empty.
func (m *Matcher) Scan(text []byte, emit func(start, end int)) {
	sc := scan{m: m, text: text, emit: emit, resetLS: -1}
	skip, stop := m.p.skip, int32(0)
	if skip != nil {
		stop = m.start // run stops on coming back to the start state
	}
	s, i := m.start, 0
	for {
		if skip != nil && s == m.start {
			if i = skip.next(text, i); i == len(text) {
				break
			}
		}
		if s, i = run(m.trans, &m.p.byteClass, text, s, i, stop); i == len(text) {
			break
		}
		var done bool
		if s, i, done = sc.special(s, i); done {
			return
		}
	}
	if len(text) > 0 && text[len(text)-1] != '\n' && m.eolMatch(s) {
		emit(lineStart(text, len(text)), len(text))
	}
}

// scan is the state of one call of Scan.
type scan struct {
	m       *Matcher
	text    []byte
	emit    func(start, end int)
	resetLS int // the start of the line that last needed the cache cleared
}

// special deals with the byte at i, on which the state at row s has no
// plain transition: one not computed yet, the end of a line, a non-ASCII
// rune, or the start state, where run stops for Scan to skip. It returns
// the state and the index to go on from, and whether text is done.
func (sc *scan) special(s int32, i int) (int32, int, bool) {
	m, text := sc.m, sc.text
	c := int(m.p.byteClass[text[i]])
	t := m.trans[int(s)+c]
	switch t {
	case tUnknown:
		if c == m.p.nascii+colNL {
			t = m.eolTransition(s)
		} else {
			t = m.step(s, c)
		}
		if t == tUnknown {
			return sc.lineDone(t, i) // the cache was cleared
		}
		m.trans[int(s)+c] = t
		return s, i, false // now known: go on from the same byte
	case tEOLMatch:
		sc.emit(lineStart(text, i), i)
		return m.start, i + 1, false
	case tCR:
		if i+1 == len(text) || text[i+1] == '\n' {
			if m.eolMatch(s) {
				sc.emit(lineStart(text, i), i)
			}
			return m.start, i + 2, i+1 == len(text)
		}
		t = m.step(s, int(m.p.crClass))
		i++
	case tHigh:
		r, w := utf8.DecodeRune(text[i:])
		t = m.step(s, m.p.runeClass(r))
		i += w
	case tMatch, tDead:
		return sc.lineDone(t, i)
	default: // the start state
		return t, i + 1, false
	}
	if t > 0 {
		return t, i, false
	}
	return sc.lineDone(t, i)
}

// lineDone ends the line that holds text[i] after the transition t: a
// match, a dead end, or a cleared cache, after which the line starts again
// or, if the cache was cleared on it before, goes to slow.
func (sc *scan) lineDone(t int32, i int) (int32, int, bool) {
	m, text := sc.m, sc.text
	ls := lineStart(text, i)
	if t == tUnknown {
		if sc.resetLS != ls {
			sc.resetLS = ls
			return m.start, ls, false
		}
		t = tDead
		if le := lineEnd(text, ls); m.slow(text[ls:trimCR(text, ls, le)]) {
			t = tMatch
		}
	}
	le := lineEnd(text, i)
	if t == tMatch {
		sc.emit(ls, trimCR(text, ls, le))
	}
	return m.start, le + 1, le+1 >= len(text)
}

// run follows the transitions from the state at row s over text from i
// until one is not to a state or is to the state at row stop (or an
// earlier one), and returns where it stopped.
func run(trans []int32, class *[256]uint8, text []byte, s int32, i int, stop int32) (int32, int) {
	for ; i < len(text); i++ {
		t := trans[int(s)+int(class[text[i]])]
		if t <= stop {
			break
		}
		s = t
	}
	return s, i
}

// lineStart returns the start of the line that holds text[i], or ends
// there.
func lineStart(text []byte, i int) int {
	return bytes.LastIndexByte(text[:i], '\n') + 1
}

func lineEnd(text []byte, i int) int {
	if le := bytes.IndexByte(text[i:], '\n'); le >= 0 {
		return i + le
	}
	return len(text)
}

func trimCR(text []byte, ls, le int) int {
	if le > ls && text[le-1] == '\r' {
		return le - 1
	}
	return le
}
