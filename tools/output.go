package tools

import (
	"bytes"
	"fmt"
	"time"
	"unicode/utf8"

	"lathe/orchestrator/provider/images"
	"lathe/prompts/human"
	"lathe/tools/sandbox"
)

// Options tunes the tools. The caller passes the limits its settings say
// (lathe's config: the keys named below); a zero value is the default
// given with it, which is also the config's default.
type Options struct {
	// MaxOutputBytes caps the content of every result
	// (limits.tool_output_bytes; default DefaultOutputBytes).
	MaxOutputBytes int
	// ReadLimit is how many lines read_file returns when the model gives no
	// limit (default 400).
	ReadLimit int
	// ShellTimeout is how long a shell command may run when the model gives
	// no timeout_seconds (limits.shell_timeout; default 2 minutes).
	ShellTimeout time.Duration
	// Env is the environment of shell commands, before lathe's additions
	// (PAGER=cat ...). Nil means the environment lathe runs in.
	Env []string
	// Confinement is how shell commands run; nil runs bash directly in a
	// process group of its own.
	Confinement *Confinement
	// Images bounds the images read_file reads for the model to see
	// (images.max_edge, images.max_bytes; default 1568 pixels, 20 MB).
	Images images.Limits
}

// Confinement runs shell commands through lathe's sandbox helper: Exe is
// the lathe executable, Policy what confines them (mode off confines
// nothing but still tracks and kills every process a command starts).
type Confinement struct {
	Exe    string
	Policy sandbox.Policy
	// Refused, when set, is why no command may run: the system cannot
	// confine them, and running them unconfined was not allowed.
	Refused error
}

// DefaultOutputBytes caps a result when the caller sets no cap: the
// built-in tools' without Options.MaxOutputBytes, and those made with Func
// or External without one of their own.
const DefaultOutputBytes = 16 << 10

const (
	defaultReadLimit    = 400
	defaultShellTimeout = 2 * time.Minute
	// minOutput keeps the cap large enough for the cut marker.
	minOutput = 256
)

// defaultImages bounds the images read_file reads when the caller sets no
// bounds.
func defaultImages() images.Limits { return images.Limits{MaxEdge: 1568, MaxBytes: 20_000_000} }

func (o Options) withDefaults() Options {
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultOutputBytes
	}
	o.MaxOutputBytes = max(o.MaxOutputBytes, minOutput)
	if o.ReadLimit <= 0 {
		o.ReadLimit = defaultReadLimit
	}
	if o.ShellTimeout <= 0 {
		o.ShellTimeout = defaultShellTimeout
	}
	if o.Images.MaxEdge <= 0 || o.Images.MaxBytes <= 0 {
		o.Images = defaultImages()
	}
	return o
}

// Cap cuts s to limit bytes the way tool results are cut: s itself if it
// fits; otherwise its head and tail, cut on line boundaries (or rune
// boundaries within one long line), with a marker in between saying how
// much was cut.
func Cap(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	w := newCapWriter(limit)
	w.Write([]byte(s))
	return w.String()
}

// markerRoom is the space reserved in a capped text for the cut marker.
const markerRoom = 64

// capWriter keeps the head and the tail of everything written to it, in
// bounded memory, so that a command printing gigabytes costs only limit
// bytes. String returns the text capped as by Cap.
type capWriter struct {
	limit int
	head  []byte // the first limit/2 bytes
	tail  []byte // the last bytes seen after head, at least limit-limit/2
	total int    // bytes written
	lines int    // newlines written
}

func newCapWriter(limit int) *capWriter {
	return &capWriter{limit: max(limit, minOutput)}
}

// Write never fails.
func (w *capWriter) Write(p []byte) (int, error) {
	w.total += len(p)
	w.lines += bytes.Count(p, []byte{'\n'})
	n := len(p)
	if room := w.limit/2 - len(w.head); room > 0 {
		take := min(room, len(p))
		w.head = append(w.head, p[:take]...)
		p = p[take:]
	}
	keep := w.limit - w.limit/2
	w.tail = append(w.tail, p...)
	if len(w.tail) > 2*keep {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-keep:]...)
	}
	return n, nil
}

// Len returns how many bytes were written.
func (w *capWriter) Len() int { return w.total }

func (w *capWriter) String() string {
	if w.total <= w.limit {
		return string(w.head) + string(w.tail)
	}
	head := w.head[:headCut(w.head)]
	budget := w.limit - len(head) - markerRoom
	tail := w.tail[max(0, len(w.tail)-budget):]
	start, atLine := tailCut(tail)
	tail = tail[start:]
	cutBytes := w.total - len(head) - len(tail)
	cutLines := w.lines - bytes.Count(head, []byte{'\n'}) - bytes.Count(tail, []byte{'\n'})
	if !atLine {
		cutLines++
	}
	var b bytes.Buffer
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %s (%d bytes) cut ...]\n", human.Plural(cutLines, "line"), cutBytes)
	b.Write(tail)
	return b.String()
}

// headCut returns where to end a head: after its last newline, or at a rune
// boundary if it holds no newline.
func headCut(b []byte) int {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return i + 1
	}
	return runeStart(string(b), len(b))
}

// tailCut returns where to start a tail: after its first newline, or at a
// rune boundary if it holds no newline; atLine says which.
func tailCut(b []byte) (start int, atLine bool) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i+1 < len(b) {
		return i + 1, true
	}
	for start < len(b) && !utf8.RuneStart(b[start]) {
		start++
	}
	return start, false
}

// runeStart returns the largest i <= n that does not split a UTF-8 sequence
// of s.
func runeStart(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}
