package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"lathe/orchestrator/provider"
)

// The official client reads a reply stream line by line and gives up on a
// line it cannot parse with that line as the error's whole text, an empty
// one for an empty line; it stops without an error at a line longer than
// its buffer. lines sits under it, in the HTTP transport, and keeps both
// from reaching the user as a riddle: blank lines, which NDJSON allows
// between objects, are dropped, and a line too long to be read is noted
// for Chat to report.

// maxLine is the longest line the official client reads (its
// maxBufferSize: 8 MB, in decimal megabytes).
const maxLine = 8_000_000

// streamNote is what the transport noticed of one reply stream.
type streamNote struct {
	tooLong bool // a line was longer than the client can read
	// cached is the done line's prompt_eval_cached_count, which newer
	// servers send and the official client does not read; -1 without it.
	cached int
}

// cachedField names the count of prompt tokens the server did not read.
var cachedField = []byte(`"prompt_eval_cached_count"`)

// doneField is how the done line says it is the last (as Go writes it,
// without spaces; in the text of a string its quotes would be escaped).
var doneField = []byte(`"done":true`)

// readCached notes the cached count of a whole line that names one.
func (n *streamNote) readCached(line []byte) {
	var v struct {
		Cached *int `json:"prompt_eval_cached_count"`
	}
	if json.Unmarshal(line, &v) == nil && v.Cached != nil && *v.Cached >= 0 {
		n.cached = *v.Cached
	}
}

type noteKey struct{}

// withNote returns ctx carrying n, for the transport to fill in.
func withNote(ctx context.Context, n *streamNote) context.Context {
	return context.WithValue(ctx, noteKey{}, n)
}

// lineTransport drops blank lines from NDJSON bodies (and JSON ones:
// whitespace there), notes what the official client does not read, and
// reads a fast stream's lines in batches (provider.Gather).
type lineTransport struct {
	base   http.RoundTripper
	gather time.Duration // 0: every line is read as it comes
}

func (t lineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	// Cloud models stream with Content-Type application/json.
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") && !strings.HasPrefix(ct, "application/json") {
		return resp, err
	}
	note, _ := req.Context().Value(noteKey{}).(*streamNote)
	if note == nil {
		note = &streamNote{}
	}
	f := &lineFilter{body: resp.Body, note: note, atStart: true}
	if t.gather > 0 {
		f.gather = provider.Gather(req.Context(), resp.Body, t.gather)
		f.body = f.gather
	}
	f.r = bufio.NewReaderSize(f.body, 64<<10)
	resp.Body = f
	return resp, nil
}

// lineFilter passes a body through but for its blank lines (spaces, tabs
// and carriage returns only).
type lineFilter struct {
	r       *bufio.Reader
	body    io.ReadCloser
	gather  *provider.GatherReader // nil when lines are read as they come
	note    *streamNote
	pending []byte // what to pass on before reading more
	atStart bool   // the next byte starts a line
	lineLen int    // bytes of the current line passed on
	head    []byte // the current line's first bytes, read one by one
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if err := f.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// fill sets pending to the next bytes to pass on; it may set none.
func (f *lineFilter) fill() error {
	if f.atStart {
		// Skip the blanks that start the line; a line of blanks only is
		// dropped, newline and all.
		var blank []byte
		for {
			b, err := f.r.ReadByte()
			if err != nil {
				return err
			}
			switch b {
			case ' ', '\t', '\r':
				blank = append(blank, b)
				continue
			case '\n':
				blank = blank[:0]
				continue
			}
			if len(blank) == 0 { // the usual line: read it whole below
				_ = f.r.UnreadByte() // cannot fail after ReadByte
				f.head = f.head[:0]
				f.atStart, f.lineLen = false, 0
				break
			}
			f.pending = append(blank, b)
			f.head = append(f.head[:0], f.pending...)
			f.atStart, f.lineLen = false, len(f.pending)
			return nil
		}
	}
	chunk, err := f.r.ReadSlice('\n')
	if len(chunk) > 0 {
		f.pending = chunk
		f.lineLen += len(chunk)
		end := chunk[len(chunk)-1] == '\n'
		if f.lineLen-boolInt(end) >= maxLine {
			f.note.tooLong = true // the client's buffer cannot hold it
		}
		if end {
			// The line is its first bytes and chunk, unless it was longer
			// than the reader's buffer.
			if f.lineLen == len(f.head)+len(chunk) && bytes.Contains(chunk, cachedField) {
				f.note.readCached(append(f.head, chunk...))
			}
			if f.gather != nil && bytes.Contains(chunk, doneField) {
				f.gather.Ending() // what follows is the end of the body
			}
			f.atStart, f.lineLen = true, 0
		}
		return nil
	}
	return err
}

func (f *lineFilter) Close() error { return f.body.Close() }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
