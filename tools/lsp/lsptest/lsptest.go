// Package lsptest is a small language server for testing lathe's client:
// it reports an error on every line of a document that holds "ERROR",
// finds where a word is defined ("def WORD") and used, and by
// LSPTEST_MODE misbehaves as servers do: floods diagnostics and answers,
// never answers initialize or a request, fails or crashes on one, stops
// reading, or points at files outside the workspace.
package lsptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Modes of misbehaviour, set in LSPTEST_MODE.
const (
	ModeFlood   = "flood"   // thousands of publications, and documents with twenty thousand diagnostics
	ModeNoInit  = "no-init" // never answers initialize
	ModeCrash   = "crash"   // exits on the second change
	ModeHang    = "hang"    // after initialize, reads nothing more and publishes nothing
	ModeOutside = "outside" // publishes for files outside the workspace too
	ModeSilent  = "silent"  // publishes nothing, ever
	ModeMute    = "mute"    // never answers a request of definitions, references, hovers or symbols
	ModeFail    = "fail"    // answers each of those with an error
	ModeBreak   = "break"   // exits on the first of those
	ModeBare    = "bare"    // serves none of those
)

// StartedEnv names a file the server appends its process id to when it
// starts; with ChildEnv set too, it starts a child (sleep) first and
// appends the child's id as well.
const (
	StartedEnv = "LSPTEST_STARTED"
	ChildEnv   = "LSPTEST_CHILD"
)

// Main runs the server on stdin and stdout, shaped by the environment
// (LSPTEST_MODE; LSPTEST_STARTED, a file it appends a line to when it
// starts), and exits.
func Main() {
	if f := os.Getenv(StartedEnv); f != "" {
		pids := []int{os.Getpid()}
		if os.Getenv(ChildEnv) != "" {
			child := exec.Command("sleep", "1000")
			if child.Start() == nil {
				pids = append(pids, child.Process.Pid)
			}
		}
		if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			for _, p := range pids {
				fmt.Fprintln(fh, p)
			}
			fh.Close()
		}
	}
	s := &server{mode: os.Getenv("LSPTEST_MODE"), in: bufio.NewReader(os.Stdin), out: bufio.NewWriter(os.Stdout),
		docs: map[string]string{}}
	os.Exit(s.run())
}

type server struct {
	mode    string
	in      *bufio.Reader
	out     *bufio.Writer
	changes int
	root    string            // the workspace's directory
	docs    map[string]string // the open documents' text, by URI
}

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type document struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Text    string `json:"text"`
}

func (s *server) run() int {
	for {
		msg, err := s.read()
		if err != nil {
			return 0
		}
		switch msg.Method {
		case "initialize":
			if s.mode == ModeNoInit {
				continue
			}
			s.initialize(msg)
		case "initialized":
			if s.mode == ModeHang {
				time.Sleep(time.Hour) // reads nothing more
			}
		case "textDocument/didOpen":
			var p struct {
				TextDocument document `json:"textDocument"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			s.docs[p.TextDocument.URI] = p.TextDocument.Text
			s.diagnose(p.TextDocument)
		case "textDocument/didClose":
			var p struct {
				TextDocument document `json:"textDocument"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			delete(s.docs, p.TextDocument.URI)
		case "textDocument/didChange":
			var p struct {
				TextDocument   document `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			s.changes++
			if s.mode == ModeCrash && s.changes == 2 {
				return 3
			}
			if len(p.ContentChanges) > 0 {
				p.TextDocument.Text = p.ContentChanges[len(p.ContentChanges)-1].Text
			}
			s.docs[p.TextDocument.URI] = p.TextDocument.Text
			s.diagnose(p.TextDocument)
		case "textDocument/definition", "textDocument/references", "textDocument/hover", "workspace/symbol":
			if !s.navigate(msg) {
				return 4
			}
		case "shutdown":
			s.reply(msg.ID, nil)
		case "exit":
			return 0
		default:
			if msg.ID != nil {
				s.reply(msg.ID, nil)
			}
		}
	}
}

// diagnose publishes an error for each line of doc holding "ERROR".
func (s *server) diagnose(doc document) {
	if s.mode == ModeSilent {
		return
	}
	var diags []map[string]any
	for i, line := range strings.Split(doc.Text, "\n") {
		if col := strings.Index(line, "ERROR"); col >= 0 {
			diags = append(diags, diagnostic(i, col, "bad: "+strings.TrimSpace(line)))
		}
	}
	switch s.mode {
	case ModeFlood:
		for i := range 2000 {
			s.publish("file:///elsewhere/f"+strconv.Itoa(i)+".fake", 0, []map[string]any{diagnostic(0, 0, "flood")})
		}
		many := make([]map[string]any, 0, 20000)
		for i := range 20000 {
			many = append(many, diagnostic(i, 0, "flood "+strconv.Itoa(i)))
		}
		s.publish(doc.URI, doc.Version, many)
	case ModeOutside:
		s.publish("file:///etc/passwd", 0, []map[string]any{diagnostic(0, 0, "outside")})
	}
	s.publish(doc.URI, doc.Version, diags)
}

func diagnostic(line, col int, msg string) map[string]any {
	pos := map[string]int{"line": line, "character": col}
	return map[string]any{"range": map[string]any{"start": pos, "end": pos}, "severity": 1, "source": "lsptest", "message": msg}
}

func (s *server) publish(uri string, version int, diags []map[string]any) {
	if diags == nil {
		diags = []map[string]any{}
	}
	p := map[string]any{"uri": uri, "diagnostics": diags}
	if version > 0 {
		p["version"] = version
	}
	s.write(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": p})
}

func (s *server) reply(id json.RawMessage, result any) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *server) write(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n", len(b))
	s.out.Write(b)
	s.out.Flush()
}

func (s *server) read() (message, error) {
	n := -1
	for {
		line, err := s.in.ReadString('\n')
		if err != nil {
			return message{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	b := make([]byte, max(n, 0))
	if _, err := io.ReadFull(s.in, b); err != nil {
		return message{}, err
	}
	var m message
	err := json.Unmarshal(b, &m)
	return m, err
}
