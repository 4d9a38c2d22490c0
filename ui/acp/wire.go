package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// The SDK reads JSON-RPC a line at a time and skips a line it cannot
// parse without a word; JSON-RPC 2.0 wants a parse error answered, with a
// null id, since the request's id cannot be read. screen stands between
// the client and the SDK to answer those, and passes on every other line
// as it came.

// lockedWriter writes whole messages, one at a time: the SDK's and
// screen's answers share stdout. It can run a function once a message
// holding a given text is out (see after).
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	after map[string]func()
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	for text, fn := range l.after {
		if bytes.Contains(p, []byte(text)) {
			delete(l.after, text)
			go fn()
		}
	}
	return n, err
}

// once runs fn once a message holding text has been written: a session's
// first notification waits for the answer that tells the client its id.
func (l *lockedWriter) once(text string, fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.after == nil {
		l.after = map[string]func(){}
	}
	l.after[text] = fn
}

var (
	parseError     = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n")
	invalidRequest = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a JSON-RPC message is an object"}}` + "\n")
)

// screen returns what the SDK reads: the lines of in that are JSON
// objects. A line that is not JSON is answered on out with a parse error,
// one that is JSON but not an object (a batch, a number) with an invalid
// request; blank lines are dropped. Nothing is read before start is
// called (the SDK's connection is set up by then); the reader ends when
// in does, or when stop is called (the SDK then sees its peer gone).
func screen(in io.Reader, out io.Writer) (r io.Reader, start, stop func()) {
	pr, pw := io.Pipe()
	start = func() { go pass(in, out, pw) }
	return pr, start, func() { pw.Close(); pr.Close() }
}

// pass passes the lines of in that are JSON objects on to pw, and
// answers the others on out.
func pass(in io.Reader, out io.Writer, pw *io.PipeWriter) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			var answer []byte
			switch {
			case !json.Valid(trimmed):
				answer = parseError
			case trimmed[0] != '{':
				answer = invalidRequest
			}
			if answer != nil {
				if _, err := out.Write(answer); err != nil {
					pw.CloseWithError(err)
					return
				}
			} else if _, err := pw.Write(append(trimmed, '\n')); err != nil {
				return // stopped
			}
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}
