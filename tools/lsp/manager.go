// Package lsp speaks the Language Server Protocol to the language servers
// of a workspace: it starts one the first time a file of its language is
// read or changed, keeps it for the session, and tells what a change
// broke (the diagnostics the change brought into the files it changed),
// what is wrong in a file now, and where a symbol is defined and used.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"lathe/tools"
)

// DefaultWait is how long a change waits for the diagnostics of the
// files it changed.
const DefaultWait = 3 * time.Second

// DefaultToolWait is how long a tool call waits for a server to start
// and answer.
const DefaultToolWait = 15 * time.Second

// Options configure a Manager.
type Options struct {
	// Dir is the workspace, absolute and clean.
	Dir string
	// Root reads the workspace's files.
	Root *os.Root
	// Servers are the servers that may run, in order of preference.
	Servers []Server
	// Start starts a server's program; nil runs it unconfined in Dir.
	Start Starter
	// Environ is the environment servers start with (KEY=VALUE), their
	// own Env added; its PATH finds their programs.
	Environ []string
	// Wait bounds how long a change waits for diagnostics; 0 means
	// DefaultWait.
	Wait time.Duration
	// Warnings reports new warnings too, not only errors.
	Warnings bool
	// Admit says whether a server that needs trust (Server.Trust set)
	// may start; nil admits none.
	Admit func(Server) bool
	// InitTimeout bounds how long a server may take to answer
	// initialize; 0 means DefaultInitTimeout.
	InitTimeout time.Duration
	// ToolWait bounds how long a call of the diagnostics or a navigation
	// tool waits for a server to start and answer; 0 means
	// DefaultToolWait.
	ToolWait time.Duration
	// Notify is told, once each, that a server failed or stopped.
	Notify func(text string)
	Log    zerolog.Logger
}

// Manager runs the language servers of one workspace for a session. Its
// methods may be called from any goroutine.
type Manager struct {
	opts    Options
	entries []*entry

	mu     sync.Mutex
	closed bool

	scan    sync.Once
	exts    map[string]bool // extensions of the workspace's files (Relevant)
	markers map[string]bool // names at its top
}

// entry is one configured server and its running client.
type entry struct {
	srv  Server
	argv []string // the command, its program found; nil when not found
	why  string   // why it cannot start, when argv is nil

	mu     sync.Mutex
	c      *client
	starts int  // 2 at most: one restart
	gone   bool // stopped for good
}

var _ tools.Checker = (*Manager)(nil)

// New returns the manager of opts.Servers; none is started yet.
func New(opts Options) *Manager {
	if opts.Wait == 0 {
		opts.Wait = DefaultWait
	}
	if opts.InitTimeout == 0 {
		opts.InitTimeout = DefaultInitTimeout
	}
	if opts.ToolWait == 0 {
		opts.ToolWait = DefaultToolWait
	}
	if opts.Start == nil {
		opts.Start = Unconfined(opts.Dir)
	}
	m := &Manager{opts: opts}
	path := getenv(opts.Environ, "PATH")
	for _, s := range opts.Servers {
		e := &entry{srv: s}
		if exe, err := lookPath(s.Command, path, opts.Dir); err != nil {
			e.why = err.Error()
		} else {
			e.argv = append([]string{exe}, s.Args...)
		}
		m.entries = append(m.entries, e)
	}
	return m
}

// Found says which servers can start and which cannot, and why, in order.
func (m *Manager) Found() []Found {
	out := make([]Found, len(m.entries))
	for i, e := range m.entries {
		out[i] = Found{Name: e.srv.Name, Extensions: e.srv.Extensions, Why: e.why}
		if e.argv != nil {
			out[i].Path = e.argv[0]
			if !m.admitted(e) {
				out[i].Why = "waits for your trust"
			}
		}
		out[i].NeedsTrust = e.srv.Trust != ""
	}
	return out
}

// Untrusted returns the servers that could start but for the user's
// trust, in order.
func (m *Manager) Untrusted() []Server {
	var out []Server
	for _, e := range m.entries {
		if e.argv != nil && !m.admitted(e) {
			out = append(out, e.srv)
		}
	}
	return out
}

// Found is a configured server as the manager found it.
type Found struct {
	Name       string
	Extensions []string
	// Path is its program; "" when not found.
	Path string
	// Why it cannot start; "" when it can.
	Why string
	// NeedsTrust: it starts only once trusted (Server.Trust).
	NeedsTrust bool
}

// admitted reports whether e may start as far as trust goes.
func (m *Manager) admitted(e *entry) bool {
	return e.srv.Trust == "" || m.opts.Admit != nil && m.opts.Admit(e.srv)
}

// entryFor is the first server that serves the file at path and may
// start; nil when none.
func (m *Manager) entryFor(path string) *entry {
	for _, e := range m.entries {
		if e.argv != nil && e.srv.Serves(path) && m.admitted(e) {
			return e
		}
	}
	return nil
}

// client returns e's running client, starting it (again, once after it
// stopped) when needed; nil when it cannot run.
func (m *Manager) client(e *entry) *client {
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case closed || e.gone:
		return nil
	case e.c != nil && e.c.failed() == nil:
		return e.c
	case e.starts >= 2:
		e.gone = true
		return nil
	}
	e.starts++
	start := time.Now()
	c, err := startClient(e.srv, e.argv, m.environ(e.srv), m.opts.Dir, m.opts.Start, m.opts.Log)
	if err != nil {
		e.gone = true
		m.tell(fmt.Sprintf("the language server %s did not start: %v", e.srv.Name, err))
		return nil
	}
	e.c = c
	go func() {
		c.initialize(m.opts.InitTimeout)
		m.opts.Log.Debug().Str("lsp", e.srv.Name).Dur("took", time.Since(start)).AnErr("error", c.failed()).Msg("language server started")
		if err := c.failed(); err != nil {
			c.fail(err) // not ready: end it
		}
	}()
	go m.watch(e, c)
	return c
}

// watch tells, once the client stopped, that it did, unless lathe
// stopped it: it starts again when next needed, once.
func (m *Manager) watch(e *entry, c *client) {
	<-c.proc.Done
	c.fail(errStopped)
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return
	}
	e.mu.Lock()
	again := e.starts < 2
	if !again {
		e.gone = true
	}
	e.mu.Unlock()
	why := c.failed().Error()
	if again {
		m.tell(fmt.Sprintf("the language server %s stopped (%s); it starts again when next needed", e.srv.Name, why))
	} else {
		m.tell(fmt.Sprintf("the language server %s stopped again (%s); lathe goes on without it", e.srv.Name, why))
	}
}

func (m *Manager) tell(text string) {
	m.opts.Log.Warn().Msg(text)
	if m.opts.Notify != nil {
		m.opts.Notify(text)
	}
}

// environ is what a server starts with: lathe's environment and its own.
func (m *Manager) environ(s Server) []string {
	env := slices.Clone(m.opts.Environ)
	for _, k := range slices.Sorted(mapsKeys(s.Env)) {
		env = append(env, k+"="+s.Env[k])
	}
	return env
}

// Read implements tools.Checker: the file's server is started, if need
// be, and the file opened in it, in the background, as it is now (a
// change that comes before the server is ready is then a change of it).
func (m *Manager) Read(path string) {
	e := m.entryFor(path)
	if e == nil {
		return
	}
	text, ok := m.readFile(path)
	if !ok {
		return
	}
	go func() {
		c := m.client(e)
		if c == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), m.opts.InitTimeout)
		defer cancel()
		if !c.waitReady(ctx) {
			return
		}
		c.open(ctx, path, text)
	}()
}

// readFile reads a file of the workspace for a server: false when it is
// not there, not a regular file, or too large.
func (m *Manager) readFile(path string) (string, bool) {
	f, err := m.opts.Root.Open(filepath.FromSlash(path))
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxFileBytes {
		return "", false
	}
	b := make([]byte, fi.Size())
	n, err := f.Read(b)
	if err != nil && n == 0 && fi.Size() > 0 {
		return "", false
	}
	return string(b[:n]), true
}

// exists reports whether path names something in the workspace.
func (m *Manager) exists(path string) bool {
	_, err := m.opts.Root.Lstat(filepath.FromSlash(path))
	return !errors.Is(err, fs.ErrNotExist)
}

// Close stops every server and waits (boundedly) for their processes to
// be gone.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range m.entries {
		e.mu.Lock()
		c := e.c
		e.mu.Unlock()
		if c != nil {
			wg.Go(c.stop)
		}
	}
	wg.Wait()
}

// names joins the names of the servers of entries.
func names(entries []*entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.srv.Name)
	}
	return out
}

// waiting is the wait as the UI names it.
func waiting(entries []*entry) string {
	return "waiting for " + strings.Join(names(entries), ", ")
}
