package tools

import (
	"bytes"
	"container/heap"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
)

// grepMatcher finds the lines of a file that match a regexp.
type grepMatcher struct {
	re      *regexp.Regexp // the pattern with (?m), so ^ and $ match at lines
	lit     []byte         // required literal, lowered if fold; nil if none
	fold    bool
	trapped bool // lit holds k or s, which non-ASCII runes fold to
}

func newGrepMatcher(expr string) (*grepMatcher, error) {
	if _, err := regexp.Compile(expr); err != nil {
		return nil, err // reported without the (?m) added below
	}
	re, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return nil, err
	}
	m := &grepMatcher{re: re}
	if lit := requiredLiteral(expr); lit.s != "" {
		m.lit, m.fold = []byte(lit.s), lit.fold
		m.trapped = lit.fold && strings.ContainsAny(lit.s, "ks")
	}
	return m, nil
}

// lineMatch is one matching line.
type lineMatch struct {
	n    int    // line number, from 1
	text string // the line, cut around the match if long
}

// search calls emit for each line of data that matches, in order, without
// its line ending. lower is scratch space for case folding.
func (m *grepMatcher) search(data []byte, lower *[]byte, emit func(n int, line []byte)) {
	if m.lit == nil || (m.trapped && hasFoldTrap(data)) {
		m.scan(data, emit)
		return
	}
	hay := data
	if m.fold {
		*lower = lowerASCII(*lower, data)
		hay = *lower
	}
	if !bytes.Contains(hay, m.lit) {
		return
	}
	n, counted := 1, 0
	for pos := 0; pos < len(data); {
		i := bytes.Index(hay[pos:], m.lit)
		if i < 0 {
			return
		}
		ls, le := lineBounds(data, pos+i)
		n += bytes.Count(data[counted:ls], []byte{'\n'})
		counted = ls
		m.check(n, data[ls:le], emit)
		pos = le + 1
	}
}

// check calls emit if line, without a \r ending, matches.
func (m *grepMatcher) check(n int, line []byte, emit func(n int, line []byte)) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if m.re.Match(line) {
		emit(n, line)
	}
}

// scanLines runs the regexp on each line by itself. scan uses it for text
// with \r\n line endings, where $ must match before the \r.
func (m *grepMatcher) scanLines(data []byte, emit func(n int, line []byte)) {
	n := 0
	for line := range bytes.Lines(data) {
		n++
		m.check(n, bytes.TrimSuffix(line, []byte{'\n'}), emit)
	}
}

// scan runs the regexp over all of data, checking each line a match starts
// on by itself, since a match may span lines while grep's are within one.
func (m *grepMatcher) scan(data []byte, emit func(n int, line []byte)) {
	if bytes.IndexByte(data, '\r') >= 0 {
		m.scanLines(data, emit)
		return
	}
	n, counted := 1, 0
	for pos := 0; pos < len(data); {
		loc := m.re.FindIndex(data[pos:])
		if loc == nil {
			return
		}
		ls, le := lineBounds(data, pos+loc[0])
		if ls == len(data) {
			return // a match in the empty "line" after the final newline
		}
		n += bytes.Count(data[counted:ls], []byte{'\n'})
		counted = ls
		m.check(n, data[ls:le], emit)
		pos = le + 1
	}
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

// maxGrepFile is the largest file grep reads; larger ones are skipped.
const maxGrepFile = 64 << 20

// readRegular reads the regular file name in dir into buf's storage. ok is
// false for anything that is not a regular file or cannot be read, and for
// files over maxGrepFile. O_NONBLOCK keeps a FIFO that replaced a file since
// the directory was read from blocking the open.
func readRegular(dir *os.Root, name string, buf []byte) (data []byte, ok bool) {
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return buf, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxGrepFile {
		return buf, false
	}
	size := int(fi.Size())
	if cap(buf) < size+1 {
		buf = make([]byte, size+1, size+size/4+1)
	}
	n, err := io.ReadFull(f, buf[:size])
	if err != nil && err != io.ErrUnexpectedEOF {
		return buf[:0], false
	}
	return buf[:n], true
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
