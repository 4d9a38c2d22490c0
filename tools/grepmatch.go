package tools

import (
	"bytes"
	"container/heap"
	"regexp"
	"strings"

	"lathe/tools/internal/linedfa"
)

// grepMatcher finds the lines of a text that match a regexp. One is made
// per search and shared by the walk's workers, each of which runs it with
// its own lineScanner.
type grepMatcher struct {
	re   *regexp.Regexp // cuts long lines around the match; matches lines the DFA gives up on
	prog *linedfa.Prog
	lit  *literalFinder // finds text every match holds; nil if none worth looking for
	// trapped is set if lit ignores case and holds k or s, which the Kelvin
	// sign and the long s fold to: text with those is scanned whole.
	trapped bool
}

// minLiteral is the shortest required literal worth looking for before
// running the automaton: shorter ones are found on almost every line.
const minLiteral = 2

func newGrepMatcher(expr string) (*grepMatcher, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	prog, err := linedfa.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &grepMatcher{re: re, prog: prog}
	if lit := requiredLiteral(expr); len(lit.s) >= minLiteral {
		m.lit = newLiteralFinder(lit.s, lit.fold)
		m.trapped = lit.fold && strings.ContainsAny(lit.s, "ks")
	}
	return m, nil
}

// lineScanner is one worker's state for running a grepMatcher: the
// automaton's cache of states, built as the text needs them, and the
// state of the search under way, kept here rather than in closures made
// for each block so that a search allocates nothing.
type lineScanner struct {
	dfa    *linedfa.Matcher
	report func(start, end int) // found, bound once
	// The search under way.
	data    []byte
	off     int // where the text given to dfa starts in data
	n       int // the number of the line at counted
	counted int // where lines are counted to
	emit    func(n int, line []byte)
}

func (m *grepMatcher) newScanner() *lineScanner {
	sc := &lineScanner{dfa: m.prog.NewMatcher(m.re.Match)}
	sc.report = sc.found
	return sc
}

// found emits the matching line from start to end of the text given to dfa.
func (sc *lineScanner) found(start, end int) {
	ls, le := sc.off+start, sc.off+end
	sc.n += bytes.Count(sc.data[sc.counted:ls], []byte{'\n'})
	sc.counted = ls
	sc.emit(sc.n, sc.data[ls:le])
}

// lineMatch is one matching line.
type lineMatch struct {
	n    int    // line number, from 1
	text string // the line, cut around the match if long
}

// search calls emit for each line of data that matches, in order, with its
// number (the first line of data is 1) and without its line ending. It
// returns the number of newlines in data.
func (m *grepMatcher) search(sc *lineScanner, data []byte, emit func(n int, line []byte)) int {
	sc.data, sc.off, sc.n, sc.counted, sc.emit = data, 0, 1, 0, emit
	defer func() { sc.data, sc.emit = nil, nil }()
	scan := m.lit == nil || (m.trapped && hasFoldTrap(data))
	if scan {
		sc.dfa.Scan(data, sc.report)
	}
	for pos := 0; !scan && pos < len(data); {
		i := m.lit.index(data[pos:])
		if i < 0 {
			break
		}
		ls, le := lineBounds(data, pos+i)
		sc.off = ls
		sc.dfa.Scan(data[ls:le], sc.report)
		pos = le + 1
	}
	return sc.n - 1 + bytes.Count(data[sc.counted:], []byte{'\n'})
}

// lineBounds returns the start and end (at its newline) of the line holding
// data[i].
func lineBounds(data []byte, i int) (start, end int) {
	start = bytes.LastIndexByte(data[:i], '\n') + 1
	end = bytes.IndexByte(data[i:], '\n')
	if end < 0 {
		return start, len(data)
	}
	return start, i + end
}

// fileMatches is what grep found in one file.
type fileMatches struct {
	path  string
	lines []lineMatch // the first ones, up to the cap
	count int         // all of them
}

// fileHeap keeps the files with the smallest paths, as many as it takes to
// hold limit lines, so that grep's memory stays bounded however many lines
// match: the output shows only the first limit lines in path order. Its
// top is the largest path.
type fileHeap struct {
	files []*fileMatches
	kept  int // lines held
	limit int
}

func (h *fileHeap) Len() int           { return len(h.files) }
func (h *fileHeap) Less(i, j int) bool { return h.files[i].path > h.files[j].path }
func (h *fileHeap) Swap(i, j int)      { h.files[i], h.files[j] = h.files[j], h.files[i] }
func (h *fileHeap) Push(x any)         { h.files = append(h.files, x.(*fileMatches)) }
func (h *fileHeap) Pop() any {
	f := h.files[len(h.files)-1]
	h.files = h.files[:len(h.files)-1]
	return f
}

// add keeps f, then drops the files with the largest paths that are not
// needed to hold limit lines.
func (h *fileHeap) add(f *fileMatches) {
	heap.Push(h, f)
	h.kept += len(f.lines)
	for h.kept-len(h.files[0].lines) >= h.limit {
		h.kept -= len(heap.Pop(h).(*fileMatches).lines)
	}
}
