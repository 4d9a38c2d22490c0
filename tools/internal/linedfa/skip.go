package linedfa

import (
	"encoding/binary"
	"math/bits"
	"regexp/syntax"
	"unicode/utf8"
)

// skipper finds the next byte that can take the automaton out of its start
// state, for patterns whose start state loops on all other bytes, and only
// if those that leave it are rare in text (bytes >= 0x80 always leave it).
// If they form at most three ranges of ASCII bytes it tests eight bytes at
// a time; else it looks each byte up in a table, which still beats
// stepping the automaton as no step waits for the one before.
type skipper struct {
	words        bool      // use addLo and addHi
	addLo, addHi [3]uint64 // per range: 0x80-lo and 0x80-hi-1 in every byte
	leaves       [256]bool
}

// maxLeave is the largest share of text, by ByteRank, that may leave the
// start state for a skipper to be worth its stops and starts.
const maxLeave = 0.15

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// newSkipper returns a skipper for p, or nil if p's start state cannot be
// skipped over that way: it depends on what came before (^ or \b), or too
// many bytes leave it.
func newSkipper(p *Prog) *skipper {
	if p.anchored || p.startFlags != 0 || p.useWord {
		return nil
	}
	var m Matcher
	m.p, m.seen = p, make([]bool, len(p.insts))
	insts, matched := m.closure(m.follow(nil, p.start), syntax.EmptyNoWordBoundary)
	if matched {
		return nil
	}
	k := &skipper{}
	for b := range utf8.RuneSelf {
		for _, pc := range insts {
			if in := &p.insts[pc]; in.Op != syntax.InstEmptyWidth && matches(in, rune(b)) {
				k.leaves[b] = true
			}
		}
	}
	k.leaves['\r'] = true
	if _, eol := m.closure(m.follow(nil, p.start), syntax.EmptyEndLine|syntax.EmptyEndText|syntax.EmptyNoWordBoundary); eol {
		k.leaves['\n'] = true
	}
	share := 0.0
	for b := range utf8.RuneSelf {
		if k.leaves[b] {
			share += byteFreq(byte(b))
		}
	}
	if share > maxLeave {
		return nil
	}
	for b := utf8.RuneSelf; b < 256; b++ {
		k.leaves[b] = true
	}
	// Ranges that never match: x >= 0x7f and not x > 0x7e.
	for r := range k.addLo {
		k.addLo[r], k.addHi[r] = 1*ones, 2*ones
	}
	r := 0
	for b := 0; b < utf8.RuneSelf; b++ {
		if !k.leaves[b] || (b > 0 && k.leaves[b-1]) {
			continue
		}
		hi := b
		for hi+1 < utf8.RuneSelf && k.leaves[hi+1] {
			hi++
		}
		if r == len(k.addLo) {
			return k // more ranges than fit: by table
		}
		k.addLo[r], k.addHi[r] = uint64(0x80-b)*ones, uint64(0x80-hi-1)*ones
		r++
	}
	k.words = true
	return k
}

// next returns the index of the first byte of text from i that leaves the
// start state, or len(text).
func (k *skipper) next(text []byte, i int) int {
	for ; k.words && i+8 <= len(text); i += 8 {
		w := binary.LittleEndian.Uint64(text[i:])
		low := w &^ highs
		// A byte x < 0x80 is in [lo, hi] if x+0x80-lo has its high bit set
		// and x+0x80-hi-1 does not; no sum carries into the next byte.
		in := (low+k.addLo[0])&^(low+k.addHi[0]) |
			(low+k.addLo[1])&^(low+k.addHi[1]) |
			(low+k.addLo[2])&^(low+k.addHi[2])
		if hit := (in&^w | w) & highs; hit != 0 {
			return i + bits.TrailingZeros64(hit)/8
		}
	}
	for ; i+4 <= len(text); i += 4 {
		if k.leaves[text[i]] || k.leaves[text[i+1]] || k.leaves[text[i+2]] || k.leaves[text[i+3]] {
			break
		}
	}
	for ; i < len(text); i++ {
		if k.leaves[text[i]] {
			return i
		}
	}
	return len(text)
}
