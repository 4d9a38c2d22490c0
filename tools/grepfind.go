package tools

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"lathe/tools/internal/linedfa"
)

// literalFinder finds a literal in text, optionally ignoring ASCII case.
// It looks for the literal's rarest byte, or, where that is common or the
// processor has AVX2, for its two rarest bytes together, and compares the
// whole literal only where it finds them: a literal that starts with a
// common letter costs no more than one that starts with a rare one.
type literalFinder struct {
	lit    []byte // lowered if fold
	fold   bool
	i, j   int    // the two offsets tested
	ci, cj uint64 // their bytes, in every byte
	fi, fj uint64 // 0x20 in every byte if that byte is a letter to fold
	common bool   // even the rarest byte is common: skip to indexCommon
	vector bool   // index goes to indexCommon, which uses pairScan
}

// commonRank is the linedfa.ByteRank from which a byte is too common to look for
// by itself (about one byte in 40 of text, as d or r in English and code).
const commonRank = 150

func newLiteralFinder(lit string, fold bool) *literalFinder {
	f := &literalFinder{lit: []byte(lit), fold: fold, vector: hasPairScan}
	rank := func(k int) int {
		c := lit[k]
		r := linedfa.ByteRank(c)
		if fold && isLetter(c) {
			r = max(r, linedfa.ByteRank(c^0x20))
		}
		return r
	}
	for k := range lit {
		if rank(k) < rank(f.i) {
			f.i = k
		}
	}
	f.j = f.i
	for k := range lit {
		if k != f.i && (f.j == f.i || rank(k) < rank(f.j)) {
			f.j = k
		}
	}
	f.common = rank(f.i) >= commonRank
	f.ci, f.fi = f.word(f.i)
	f.cj, f.fj = f.word(f.j)
	return f
}

// word returns the byte at offset k of the literal and its fold mask, in
// every byte of a word.
func (f *literalFinder) word(k int) (c, fold uint64) {
	c = uint64(f.lit[k]) * ones
	if f.fold && isLetter(f.lit[k]) {
		fold = 0x20 * ones
	}
	return c, fold
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// index returns the index of the first instance of the literal in text,
// or -1. Without AVX2, and if that byte is not common, it looks for the
// literal's rarest byte with bytes.IndexByte and compares the literal
// where it finds one, until that byte turns out common in text.
func (f *literalFinder) index(text []byte) int {
	if f.common || f.vector {
		return f.indexCommon(text, 0)
	}
	last := len(text) - len(f.lit) // the last offset the literal can start at
	c := f.lit[f.i]
	other := c // the byte's other case, if folded
	if f.fi != 0 {
		other ^= 0x20
	}
	next, nextOther := -1, -1 // where c and other are next found, at or after p+f.i
	for p, fails := 0, 0; p <= last; p++ {
		from := p + f.i
		if next < from {
			next = indexFrom(text, c, from)
		}
		if nextOther < from {
			nextOther = indexFrom(text, other, from)
		}
		k := min(next, nextOther)
		if k-f.i > last {
			return -1
		}
		if p = k - f.i; f.at(text, p) {
			return p
		}
		if fails++; fails > 8+p/16 {
			return f.indexCommon(text, p+1)
		}
	}
	return -1
}

// indexFrom returns the index of the first c in text at or after from, or
// a large number if there is none.
func indexFrom(text []byte, c byte, from int) int {
	if i := bytes.IndexByte(text[from:], c); i >= 0 {
		return from + i
	}
	return len(text)
}

// indexCommon is index from p for text where the rarest byte is common,
// or for any text where the processor has AVX2: there it tests the
// literal's two rarest bytes at 32 offsets an instruction (pairScan),
// faster than bytes.IndexByte stopping at each instance of one byte as
// soon as that is one in a few hundred, and five times as fast as words.
// Else it leaves a literal that keeps case to bytes.Index, and tests a
// folded one's two bytes in words.
func (f *literalFinder) indexCommon(text []byte, p int) int {
	last := len(text) - len(f.lit) // the last offset the literal can start at
	var q int
	switch {
	case f.vector:
		q, p = f.indexVector(text, p, last)
	case !f.fold:
		if i := bytes.Index(text[p:], f.lit); i >= 0 {
			return p + i
		}
		return -1
	default:
		q, p = f.indexWords(text, p, last)
	}
	if q >= 0 {
		return q
	}
	for ; p <= last; p++ {
		if f.at(text, p) {
			return p
		}
	}
	return -1
}

// indexVector looks for the literal from p with pairScan, as far as it
// tests 32 offsets at a time. It returns where it found the literal, or
// -1 and the offset it got to.
func (f *literalFinder) indexVector(text []byte, p, last int) (int, int) {
	if p > last {
		return -1, p
	}
	// a[q] and b[q] are the bytes a literal at q has at offsets i and j.
	a, b := text[f.i:last+1+f.i], text[f.j:last+1+f.j]
	ca, cb := f.lit[f.i], f.lit[f.j]
	var fa, fb byte
	if f.fi != 0 {
		fa = 0x20
	}
	if f.fj != 0 {
		fb = 0x20
	}
	for {
		off, hits := pairScan(a[p:], b[p:], ca, cb, fa, fb)
		if hits == 0 {
			return -1, p + off
		}
		for ; hits != 0; hits &= hits - 1 {
			if q := p + off + bits.TrailingZeros32(hits); f.at(text, q) {
				return q, q
			}
		}
		p += off + 32
	}
}

// indexWords looks for a folded literal from p by testing its two bytes
// in words, 32 offsets a round, as far as whole rounds go. It returns where
// it found the literal, or -1 and the offset it got to.
func (f *literalFinder) indexWords(text []byte, p, last int) (int, int) {
	// Four words a round, for the processor to work on them at once; the
	// round's 32 bytes from each offset are cut once, to check bounds once.
	end := min(last, len(text)-max(f.i, f.j)-32) // the last p a round can start at
	ci, cj, fi, fj := f.ci, f.cj, f.fi, f.fj
	for ; p <= end; p += 32 {
		a, b := text[p+f.i:][:32], text[p+f.j:][:32]
		h0 := zeroBytes(((le64(a[0:]) | fi) ^ ci) | ((le64(b[0:]) | fj) ^ cj))
		h1 := zeroBytes(((le64(a[8:]) | fi) ^ ci) | ((le64(b[8:]) | fj) ^ cj))
		h2 := zeroBytes(((le64(a[16:]) | fi) ^ ci) | ((le64(b[16:]) | fj) ^ cj))
		h3 := zeroBytes(((le64(a[24:]) | fi) ^ ci) | ((le64(b[24:]) | fj) ^ cj))
		if h0|h1|h2|h3 == 0 {
			continue
		}
		if q := f.check(text, p, h0, h1, h2, h3); q >= 0 {
			return q, q
		}
	}
	return -1, p
}

// check compares the literal at p plus each byte whose high bit is set in
// the hits of the words from p on, and returns the first offset it is at,
// or -1.
func (f *literalFinder) check(text []byte, p int, hits ...uint64) int {
	last := len(text) - len(f.lit)
	for k, h := range hits {
		for ; h != 0; h &= h - 1 {
			if q := p + 8*k + bits.TrailingZeros64(h)/8; q <= last && f.at(text, q) {
				return q
			}
		}
	}
	return -1
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// at reports whether the literal starts at text[p].
func (f *literalFinder) at(text []byte, p int) bool {
	if !f.fold {
		return bytes.Equal(text[p:p+len(f.lit)], f.lit)
	}
	for k, c := range f.lit {
		if t := text[p+k]; t != c && !(isLetter(c) && t|0x20 == c) {
			return false
		}
	}
	return true
}

// zeroBytes returns the high bit of each byte of x that is zero, and
// perhaps of a byte after one that is.
func zeroBytes(x uint64) uint64 { return (x - ones) &^ x & highs }
