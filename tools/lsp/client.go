package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"
)

// Bounds on what a server may make lathe keep.
const (
	maxOpen        = 1000 // documents open in one server
	maxOthers      = 500  // files not open whose diagnostics are kept
	maxDiagnostics = 200  // diagnostics kept per document
	maxMessageText = 300  // bytes of a diagnostic's message kept
	maxFileBytes   = 2 << 20
)

// client is one running server and the documents lathe opened in it.
type client struct {
	srv  Server
	dir  string // the workspace
	proc *Process
	conn *jsonrpc2.Conn
	log  zerolog.Logger

	send sync.Mutex // held while a document is synced: its notifications go in order
	mu   sync.Mutex
	docs map[protocol.DocumentURI]*document
	// others are the diagnostics published for files of the workspace
	// not open, by path: the server looked at them on its own.
	others map[string][]protocol.Diagnostic
	last   time.Time     // when the last publication came
	ping   chan struct{} // closed, and replaced, at each publication
	ready  chan struct{} // closed once initialized (or failed)
	err    error         // why it failed or stopped, once it did
	caps   protocol.ServerCapabilities
	ids    atomic.Uint64 // the requests made
}

// document is a file open in the server.
type document struct {
	path    string // relative to the workspace, with slashes
	version int32
	text    string
	diags   []protocol.Diagnostic // as last published
	seq     int                   // publications received
	pubVer  int32                 // the version the last publication was for; 0 when it said none
	// base is what the file had wrong before the change being checked
	// (what the model was told, or did not need to be); based says it
	// is known.
	base  []protocol.Diagnostic
	based bool
}

// startClient starts srv's program with start and begins to initialize
// it in the background; ready is closed when that is done.
func startClient(srv Server, argv, env []string, dir string, start Starter, log zerolog.Logger) (*client, error) {
	stderr := &logWriter{log: log.With().Str("lsp", srv.Name).Logger()}
	proc, err := start(argv, env, stderr)
	if err != nil {
		return nil, err
	}
	c := &client{srv: srv, dir: dir, proc: proc, log: log, docs: map[protocol.DocumentURI]*document{}, others: map[string][]protocol.Diagnostic{},
		ping: make(chan struct{}), ready: make(chan struct{})}
	stream := jsonrpc2.NewBufferedStream(pipe{proc.Stdout, proc.Stdin}, codec{})
	c.conn = jsonrpc2.NewConn(context.Background(), stream, c)
	go func() {
		select {
		case <-proc.Done:
		case <-c.conn.DisconnectNotify():
		}
		c.fail(errStopped)
	}()
	return c, nil
}

// DefaultInitTimeout bounds how long a server may take to answer
// initialize.
const DefaultInitTimeout = 20 * time.Second

// initialize runs the handshake; ready is closed at its end. No process
// id is sent: a server in the sandbox may not be able to look at lathe's,
// and would take it for gone; lathe ends its servers itself.
func (c *client) initialize(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	root := uri(c.dir)
	params := map[string]any{
		"processId":        nil,
		"clientInfo":       map[string]string{"name": "lathe"},
		"rootUri":          root,
		"rootPath":         c.dir,
		"workspaceFolders": []protocol.WorkspaceFolder{{URI: string(root), Name: "workspace"}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": false, "dynamicRegistration": false},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
				"hover":              map[string]any{"contentFormat": []string{"plaintext", "markdown"}},
				"definition":         map[string]any{"linkSupport": false},
				"references":         map[string]any{},
			},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
			"window":    map[string]any{"workDoneProgress": false},
		},
	}
	var res protocol.InitializeResult
	err := c.conn.Call(ctx, "initialize", params, &res)
	if err == nil {
		err = c.conn.Notify(ctx, "initialized", struct{}{})
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("it did not answer initialize within %s", timeout)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil && c.err == nil {
		c.err = err
	}
	c.caps = res.Capabilities
	close(c.ready)
}

// fail marks the client stopped for err and ends its program.
func (c *client) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.proc.Stop()
	_ = c.conn.Close()
	c.broadcast()
}

// failed returns why the client stopped; nil while it runs.
func (c *client) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// waitReady waits for the handshake, at most until ctx is done; false
// when it is not done or failed.
func (c *client) waitReady(ctx context.Context) bool {
	select {
	case <-c.ready:
		return c.failed() == nil
	case <-ctx.Done():
		return false
	}
}

// broadcast wakes whoever waits for a publication.
func (c *client) broadcast() {
	c.mu.Lock()
	close(c.ping)
	c.ping = make(chan struct{})
	c.mu.Unlock()
}

// Handle implements jsonrpc2.Handler: what the server sends lathe.
func (c *client) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		if req.Params != nil {
			c.published(*req.Params)
		}
		return
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		_ = conn.Reply(ctx, req.ID, make([]any, min(len(p.Items), 1000)))
		return
	case "workspace/workspaceFolders":
		_ = conn.Reply(ctx, req.ID, []protocol.WorkspaceFolder{{URI: string(uri(c.dir)), Name: "workspace"}})
		return
	}
	if !req.Notif {
		// registerCapability, workDoneProgress/create, showMessageRequest:
		// acknowledged; anything else is not lathe's.
		switch req.Method {
		case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create",
			"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
			"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
			_ = conn.Reply(ctx, req.ID, nil)
		default:
			_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "not supported"})
		}
	}
}

// published keeps a publication of diagnostics for a document lathe has
// open; any other (a file outside the workspace, one never opened) is
// dropped.
func (c *client) published(raw json.RawMessage) {
	var p protocol.PublishDiagnosticsParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return
	}
	path, inside := pathOf(c.dir, string(p.URI))
	if !inside {
		return
	}
	c.mu.Lock()
	c.last = time.Now()
	if d, ok := c.docs[p.URI]; ok {
		d.diags = keep(p.Diagnostics)
		d.seq++
		d.pubVer = p.Version
	} else if _, known := c.others[path]; len(p.Diagnostics) == 0 {
		delete(c.others, path)
	} else if known || len(c.others) < maxOthers {
		c.others[path] = keep(p.Diagnostics)
	}
	c.mu.Unlock()
	c.broadcast()
}

// quiet waits until no publication came for d, or ctx is done.
func (c *client) quiet(ctx context.Context, d time.Duration) {
	for {
		c.mu.Lock()
		last, ping := c.last, c.ping
		c.mu.Unlock()
		left := d - time.Since(last)
		if left <= 0 {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-ping:
		case <-t.C:
		}
		t.Stop()
	}
}

// current is what the server reports wrong now, in the files open and
// the others: errors, and warnings when asked for.
func (c *client) current(warnings bool) []found {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []found
	add := func(path, text string, diags []protocol.Diagnostic) {
		for _, d := range diags {
			if d.Severity <= protocol.SeverityError || warnings && d.Severity == protocol.SeverityWarning {
				out = append(out, foundOf(path, text, d))
			}
		}
	}
	for _, d := range c.docs {
		add(d.path, d.text, d.diags)
	}
	for path, diags := range c.others {
		if _, open := c.docs[uri(absPath(c.dir, path))]; !open {
			add(path, "", diags)
		}
	}
	return out
}

// keep clips what a publication holds to its bounds.
func keep(diags []protocol.Diagnostic) []protocol.Diagnostic {
	diags = diags[:min(len(diags), maxDiagnostics)]
	out := make([]protocol.Diagnostic, len(diags))
	for i, d := range diags {
		out[i] = protocol.Diagnostic{Range: d.Range, Severity: d.Severity, Source: clip(d.Source, 40), Message: clip(d.Message, maxMessageText)}
	}
	return out
}

// notifyTimeout bounds how long a notification may take to be written:
// a server that reads nothing fills the pipe, and is taken for hung.
const notifyTimeout = 5 * time.Second

// notify sends a notification, waiting for it to be written at most
// until ctx is done. A server that does not take it within notifyTimeout
// is stopped: it hangs.
func (c *client) notify(ctx context.Context, method string, params any) error {
	return c.write(ctx, func() error { return c.conn.Notify(context.Background(), method, params) })
}

// write runs send, which writes a message to the server, waiting for it
// at most until ctx is done. A server that does not take the message
// within notifyTimeout is stopped: it hangs.
func (c *client) write(ctx context.Context, send func() error) error {
	done := make(chan error, 1)
	go func() { done <- send() }()
	hung := func() error {
		t := time.NewTimer(notifyTimeout)
		defer t.Stop()
		select {
		case err := <-done:
			return err
		case <-t.C:
			err := errors.New("it stopped reading what lathe sends")
			c.fail(err)
			return err
		}
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		go hung()
		return ctx.Err()
	}
}

// sync makes the server's copy of the document at path (relative) hold
// text: opened at first, changed after. It returns the document's state
// as it was, and false when the server could not be told.
func (c *client) sync(ctx context.Context, path, text string) (before document, ok bool) {
	c.send.Lock()
	defer c.send.Unlock()
	return c.syncLocked(ctx, path, text)
}

// syncLocked is sync, c.send held.
func (c *client) syncLocked(ctx context.Context, path, text string) (before document, ok bool) {
	u := uri(absPath(c.dir, path))
	c.mu.Lock()
	d, open := c.docs[u]
	if !open {
		if len(c.docs) >= maxOpen {
			c.mu.Unlock()
			return document{}, false
		}
		d = &document{path: path}
		c.docs[u] = d
	}
	before = *d
	d.version++
	d.text = text
	version := d.version
	c.mu.Unlock()
	var err error
	if !open {
		err = c.notify(ctx, "textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: u, LanguageID: protocol.LanguageKind(c.srv.language(path)), Version: version, Text: text}})
	} else {
		err = c.notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
			"contentChanges": []map[string]string{{"text": text}},
		})
	}
	return before, err == nil
}

// open opens the document at path holding text, unless it is open.
func (c *client) open(ctx context.Context, path, text string) {
	c.send.Lock()
	defer c.send.Unlock()
	if _, open := c.state(path); !open {
		c.syncLocked(ctx, path, text)
	}
}

// close tells the server a document is gone (its file was removed).
func (c *client) close(ctx context.Context, path string) {
	u := uri(absPath(c.dir, path))
	c.send.Lock()
	defer c.send.Unlock()
	c.mu.Lock()
	_, open := c.docs[u]
	delete(c.docs, u)
	c.mu.Unlock()
	if open {
		_ = c.notify(ctx, "textDocument/didClose", protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}
}

// setBase keeps diags as what the document at path has wrong that is
// not news.
func (c *client) setBase(path string, diags []protocol.Diagnostic) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.docs[uri(absPath(c.dir, path))]; ok {
		d.base, d.based = diags, true
	}
}

// state returns a copy of the document at path; false when not open.
func (c *client) state(path string) (document, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[uri(absPath(c.dir, path))]
	if !ok {
		return document{}, false
	}
	return *d, true
}

// awaitFresh waits until the document at path has a publication newer
// than its seq-th, for its version (when the server says which), or
// until ctx is done: false then.
func (c *client) awaitFresh(ctx context.Context, path string, seq int) (document, bool) {
	u := uri(absPath(c.dir, path))
	for {
		c.mu.Lock()
		d, ok := c.docs[u]
		var doc document
		if ok {
			doc = *d
		}
		ping, err := c.ping, c.err
		c.mu.Unlock()
		switch {
		case !ok || err != nil:
			return document{}, false
		case doc.seq > seq && (doc.pubVer == 0 || doc.pubVer >= doc.version):
			return doc, true
		}
		select {
		case <-ping:
		case <-ctx.Done():
			return document{}, false
		}
	}
}

// request makes a request of the server and decodes its answer into
// result, waiting at most until ctx is done: a request not answered by
// then is cancelled (the server is told), and its answer, should it
// come, dropped. Writing it is bounded as a notification's is.
func (c *client) request(ctx context.Context, method string, params, result any) error {
	if err := c.failed(); err != nil {
		return err
	}
	// An id of lathe's own, a string, so that it can be cancelled; the
	// connection numbers the others.
	id := jsonrpc2.ID{Str: "lathe-" + strconv.FormatUint(c.ids.Add(1), 10), IsString: true}
	var w jsonrpc2.Waiter
	err := c.write(ctx, func() error {
		var err error
		w, err = c.conn.DispatchCall(context.Background(), method, params, jsonrpc2.PickID(id))
		return err
	})
	if err != nil {
		return c.why(err)
	}
	if err = w.Wait(ctx, result); err != nil && ctx.Err() != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			defer cancel()
			_ = c.notify(ctx, "$/cancelRequest", map[string]any{"id": id})
		}()
		return ctx.Err()
	}
	return c.why(err)
}

// why is err, or why the client stopped when err is the connection's
// closing.
func (c *client) why(err error) error {
	if errors.Is(err, jsonrpc2.ErrClosed) {
		if stopped := c.failed(); stopped != nil {
			return stopped
		}
		return errStopped
	}
	return err
}

// supports reports whether the server said it answers method.
func (c *client) supports(method string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	var v any
	switch method {
	case "textDocument/definition":
		if p := c.caps.DefinitionProvider; p != nil {
			v = p.Value
		}
	case "textDocument/references":
		if p := c.caps.ReferencesProvider; p != nil {
			v = p.Value
		}
	case "textDocument/hover":
		if p := c.caps.HoverProvider; p != nil {
			v = p.Value
		}
	case "workspace/symbol":
		if p := c.caps.WorkspaceSymbolProvider; p != nil {
			v = p.Value
		}
	}
	return v != nil && v != false
}

// stop ends the server: shutdown and exit when it answers at once, its
// processes killed either way.
func (c *client) stop() {
	if c.failed() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		if c.request(ctx, "shutdown", nil, nil) == nil {
			_ = c.notify(ctx, "exit", nil)
		}
		cancel()
	}
	c.fail(errStopped)
}

// pipe joins a server's stdout and stdin into the stream jsonrpc2 reads
// and writes.
type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipe) Close() error {
	err := p.w.Close()
	return errors.Join(err, p.ReadCloser.Close())
}

// logWriter logs what a server writes on stderr, a line at a time, at
// debug level, and drops what is more than a line's bound.
type logWriter struct {
	log zerolog.Logger
	mu  sync.Mutex
	buf []byte
}

func (w *logWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ch := range b {
		if ch == '\n' {
			w.log.Debug().Str("stderr", string(w.buf)).Msg("language server")
			w.buf = w.buf[:0]
			continue
		}
		if len(w.buf) < 1000 {
			w.buf = append(w.buf, ch)
		}
	}
	return len(b), nil
}
