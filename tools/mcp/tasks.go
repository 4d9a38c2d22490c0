package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// Task-augmented calls (the spec's tasks, 2025-11-25) are not in the SDK
// lathe speaks MCP with, which drops a tool's execution.taskSupport from
// the lists it reads. What a server sends is watched on its way to the
// SDK instead: a tool whose calls require a task is left out of the tools
// offered (a call without one could only fail), and said once.

// watchLists reads the tool lists in what the server sends (lines of
// JSON-RPC, or of server-sent events) and keeps, for each tool listed,
// whether it requires a task.
func (s *server) watchLists(line []byte) {
	line = bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data:"))
	if !bytes.Contains(line, []byte(`"inputSchema"`)) || !bytes.Contains(line, []byte(`"result"`)) {
		return
	}
	var msg struct {
		Result struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range msg.Result.Tools {
		if t.Execution.TaskSupport == "required" {
			s.taskOnly[t.Name] = true
		} else {
			delete(s.taskOnly, t.Name)
		}
	}
}

// maxLine bounds a line watched: a longer one is passed on unread.
const maxLine = 4 << 20

// lineWatch passes what it reads on, and each line of it to fn.
type lineWatch struct {
	r    io.Reader
	fn   func([]byte)
	buf  []byte
	long bool // the line under way is past maxLine
}

func (w *lineWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			w.keep(data)
			break
		}
		w.keep(data[:i])
		if !w.long {
			w.fn(w.buf)
		}
		w.buf, w.long, data = w.buf[:0], false, data[i+1:]
	}
	if err != nil && len(w.buf) > 0 && !w.long {
		w.fn(w.buf) // a body of one line, without its newline
		w.buf = w.buf[:0]
	}
	return n, err
}

func (w *lineWatch) keep(b []byte) {
	if w.long || len(w.buf)+len(b) > maxLine {
		w.long, w.buf = true, w.buf[:0]
		return
	}
	w.buf = append(w.buf, b...)
}

// readCloser is a watched body, closed as it was.
type readCloser struct {
	io.Reader
	io.Closer
}

// watchTransport passes each response body of an HTTP server through
// fn, line by line.
type watchTransport struct {
	next http.RoundTripper
	fn   func([]byte)
}

func (t watchTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(r)
	if err == nil && res.Body != nil {
		res.Body = readCloser{Reader: &lineWatch{r: res.Body, fn: t.fn}, Closer: res.Body}
	}
	return res, err
}
