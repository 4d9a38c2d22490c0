package mcp

import (
	"io"
	"regexp"
	"slices"
	"strings"
)

// stderrTail is what a server wrote to stderr that may say why it failed:
// its last line, and its last line that reads as an error.
type stderrTail struct {
	last, lastError string
}

// errorWords are what a line that reports an error holds.
var errorWords = regexp.MustCompile(`(?i)\b(error|err|fatal|panic|exception|fail(ed|ure)?|cannot|can't|could not|unable|denied|refused|not found|no such|invalid|missing|traceback)\b`)

func (t *stderrTail) add(line string) {
	t.last = line
	if errorWords.MatchString(line) {
		t.lastError = line
	}
}

// why is the last line that reads as an error; with anyLine, the last
// line when none does.
func (t stderrTail) why(anyLine bool) string {
	if t.lastError != "" || !anyLine {
		return t.lastError
	}
	return t.last
}

// lineWriter calls line for every line written to it, each at most 4 KiB:
// a server that writes without end costs a bounded buffer.
type lineWriter struct {
	line func(string)
	buf  []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := slices.Index(p, '\n')
		if i < 0 {
			w.buf = append(w.buf, p[:min(len(p), 4096-len(w.buf))]...)
			break
		}
		w.buf = append(w.buf, p[:min(i, 4096-len(w.buf))]...)
		if line := strings.TrimRight(string(w.buf), "\r"); strings.TrimSpace(line) != "" {
			w.line(line)
		}
		w.buf, p = w.buf[:0], p[i+1:]
	}
	return n, nil
}

var _ io.Writer = (*lineWriter)(nil)
