package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/prompts/human"
	"lathe/tools"
	"lathe/tools/mcp/oauth"
)

// State is where a server stands.
type State string

const (
	StateOff       State = "off"       // disabled in the config, or for the session
	StateUntrusted State = "untrusted" // the project's, not trusted yet
	StateStarting  State = "starting"
	StateReady     State = "ready"
	StateFailed    State = "failed" // did not start, stopped, or stopped answering
)

// defaultStartTimeout bounds a server's start: the process (or the
// connection) and the first exchange, initialize and the tool list.
const defaultStartTimeout = 30 * time.Second

// server is one configured MCP server and its connection.
type server struct {
	name string
	cfg  Server
	m    *Manager

	mu       sync.Mutex
	state    State
	why      string             // why it failed
	session  *sdk.ClientSession // while ready
	proc     *process           // the process of a stdio server, while it runs
	gen      int                // counts connections: a watcher of an old one stands down
	latest   []*sdk.Tool        // the server's tool list, as last listed
	listGen  int                // counts lists: one more each time the list is read
	offered  int                // the listGen of the list offered to the model; 0 before it joined
	tools    map[int][]entry    // adapters built per listGen, so that specs stay the same values
	restarts int                // restarts in this run
	ready    chan struct{}      // closed when the start under way ends
	started  time.Time          // when the start under way began
	progress map[string]func(string)
	calls    int           // counts calls, for progress tokens
	inflight int           // calls under way
	idle     chan struct{} // closed when the calls under way have all ended
	stderr   stderrTail    // what the server wrote to stderr since it started, or became ready
	client   *sdk.Client   // while ready: its roots are told again when they change
	sealed   string        // the seal it was trusted with; "" when not (or it needs no trust)
	runs     []string
	changed  bool // what it runs changed since it was trusted
	// samplingGranted: the user let the model answer the server's
	// requests for the session.
	samplingGranted bool
	taskOnly        map[string]bool // the tools that require a task (tasks.go)
	prompts         []*sdk.Prompt   // while ready (catalog.go)
	resources       []*sdk.Resource
	toldLeftOut     bool // that they were left out was said
}

// entry is one tool of a server, as offered to the model.
type entry struct {
	tool     tools.Tool
	server   string
	name     string // the server's own name for it
	desc     string // whole
	schema   json.RawMessage
	readOnly bool
}

func newServer(m *Manager, name string, cfg Server) *server {
	s := &server{name: name, cfg: cfg, m: m, state: StateOff, tools: map[int][]entry{}, progress: map[string]func(string){},
		taskOnly: map[string]bool{}}
	s.ready = make(chan struct{})
	close(s.ready)
	return s
}

// start connects to the server in the background, unless it is starting
// or ready.
func (s *server) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateStarting || s.state == StateReady {
		return
	}
	s.state, s.why = StateStarting, ""
	s.stderr = stderrTail{}
	s.started = time.Now()
	s.gen++
	s.ready = make(chan struct{})
	gen, ready := s.gen, s.ready
	s.m.wg.Go(func() {
		defer close(ready)
		s.connect(gen)
	})
}

// connect starts the server and lists its tools, within startTimeout,
// once sure that it runs what it was trusted with (a command in the
// sandbox may have rewritten it since).
func (s *server) connect(gen int) {
	if !s.m.admit(s) {
		s.untrusted(gen)
		return
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.StartTimeout)
	defer cancel()
	client := s.newClient(gen)
	transport, proc, err := s.transport()
	if err != nil {
		s.fail(gen, err.Error())
		return
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		why := s.startError(ctx, proc, err)
		proc.kill()
		s.fail(gen, why)
		return
	}
	list, err := listTools(ctx, cs)
	if err != nil {
		why := s.startError(ctx, proc, err)
		_ = cs.Close()
		proc.kill()
		s.fail(gen, why)
		return
	}
	s.mu.Lock()
	if s.gen != gen || s.m.ctx.Err() != nil {
		s.mu.Unlock()
		_ = cs.Close()
		proc.kill()
		return
	}
	s.state, s.session, s.proc, s.client = StateReady, cs, proc, client
	s.stderr = stderrTail{} // its start-up banner says nothing of a crash
	s.setList(list)
	s.mu.Unlock()
	s.m.opts.Log.Info().Str("server", s.name).Int("tools", len(list)).Msg("mcp server ready")
	s.listCatalog(ctx, cs, gen)
	s.m.wg.Go(func() { s.watch(cs, gen) })
}

// startError says why a start failed.
func (s *server) startError(ctx context.Context, proc *process, err error) string {
	why, exited := err.Error(), false
	var login *oauth.LoginError
	switch {
	case errors.As(err, &login):
		why = login.Error()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why = fmt.Sprintf("it did not answer within %s (mcp.start_timeout)", human.Duration(s.m.opts.StartTimeout))
	case proc.exitedWithin(time.Second):
		why, exited = "it stopped: "+proc.status(), true
	}
	// A server still running has said nothing of why, unless it says so
	// as an error: its banner ("running on stdio") is no reason.
	if line := s.stderrWhy(exited); line != "" {
		why += ": " + line
	}
	return why
}

// listTools reads the server's whole tool list, page after page.
func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var list []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list its tools: %w", err)
		}
		list = append(list, t)
		if len(list) > maxTools {
			return nil, fmt.Errorf("it lists more than %d tools", maxTools)
		}
	}
	return list, nil
}

// maxTools bounds a server's tool list: a server that lists endlessly
// costs no more.
const maxTools = 1000

// setList takes a new tool list; s.mu is held.
func (s *server) setList(list []*sdk.Tool) {
	s.latest = list
	s.listGen++
}

// relist reads the tool list again after the server said it changed. The
// new list is offered at the next mode change or reload, never in the
// middle of a run.
func (s *server) relist(gen int) {
	go func() {
		s.mu.Lock()
		cs := s.session
		current := s.gen == gen && s.state == StateReady
		s.mu.Unlock()
		if !current {
			return
		}
		ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.StartTimeout)
		defer cancel()
		if n, ok := s.listAgain(ctx, cs, gen); ok {
			s.m.opts.Log.Info().Str("server", s.name).Int("tools", n).Msg("mcp tool list changed")
		}
	}()
}

// listAgain reads the tool list of session cs, of start gen, again and
// keeps it unless the server was started again since; a failure is
// logged. It reports how many tools it kept.
func (s *server) listAgain(ctx context.Context, cs *sdk.ClientSession, gen int) (int, bool) {
	list, err := listTools(ctx, cs)
	if err != nil {
		s.m.opts.Log.Warn().Err(err).Str("server", s.name).Msg("mcp tools not listed again")
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return 0, false
	}
	s.setList(list)
	return len(list), true
}

// watch waits for the connection to end. One that ends while the server
// is in use is a crash: told once, and the server started again if it was
// not already in this run.
func (s *server) watch(cs *sdk.ClientSession, gen int) {
	_ = cs.Wait()
	s.mu.Lock()
	if s.gen != gen || s.state != StateReady || s.m.ctx.Err() != nil {
		s.mu.Unlock()
		return
	}
	proc := s.proc
	s.mu.Unlock()
	why := "the connection closed"
	if proc.exitedWithin(2 * time.Second) {
		why = "it stopped: " + proc.status()
	}
	if line := s.stderrWhy(true); line != "" {
		why += ": " + line
	}
	s.crashed(gen, why)
}

// crashed marks a server that stopped or stopped answering, and restarts
// it once per run.
func (s *server) crashed(gen int, why string) {
	s.mu.Lock()
	if s.gen != gen || s.state != StateReady {
		s.mu.Unlock()
		return
	}
	cs, proc := s.session, s.proc
	s.session, s.proc, s.client = nil, nil, nil
	s.prompts, s.resources = nil, nil
	s.state, s.why = StateFailed, why
	restart := s.restarts < 1
	if restart {
		s.restarts++
	}
	s.mu.Unlock()
	if cs != nil {
		go func() { _ = cs.Close() }()
	}
	proc.kill()
	text := fmt.Sprintf("MCP server %s failed: %s", s.name, why)
	if restart {
		text += "; starting it again"
	}
	s.m.notify(Notice{Server: s.name, Text: text, Failed: true})
	if restart {
		s.start()
	}
}

// untrusted ends a start that admit refused, and tells it once.
func (s *server) untrusted(gen int) {
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return
	}
	why := s.why
	s.mu.Unlock()
	if s.m.ctx.Err() == nil {
		s.m.notify(Notice{Server: s.name, Text: fmt.Sprintf("MCP server %s was not started: %s", s.name, why), Failed: true})
	}
}

// fail marks a start that failed, and tells it once.
func (s *server) fail(gen int, why string) {
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return
	}
	s.state, s.why = StateFailed, why
	s.mu.Unlock()
	if s.m.ctx.Err() == nil {
		text := fmt.Sprintf("MCP server %s did not start: %s", s.name, why)
		if s.m.opts.Wait {
			text += "; left out of this run"
		}
		s.m.notify(Notice{Server: s.name, Text: text, Failed: true})
	}
}

// stop ends the connection, for good or until the next start.
func (s *server) stop(state State, why string) {
	s.mu.Lock()
	s.gen++
	cs, proc := s.session, s.proc
	s.session, s.proc, s.client = nil, nil, nil
	s.prompts, s.resources = nil, nil
	s.state, s.why = state, why
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close() // closes its stdin: a server is asked to end so
	}
	if !proc.exitedWithin(2 * time.Second) {
		proc.kill()
	}
}

// transport is how to reach the server: a process it starts (with the
// process, to watch and kill), or an HTTP endpoint.
func (s *server) transport() (sdk.Transport, *process, error) {
	if s.cfg.URL != "" {
		headers := maps.Clone(s.cfg.Headers)
		if env := s.cfg.BearerTokenEnv; env != "" {
			token := s.m.opts.Getenv(env)
			if token == "" {
				return nil, nil, fmt.Errorf("%s, which bearer_token_env names, is not set", env)
			}
			if headers == nil {
				headers = map[string]string{}
			}
			headers["Authorization"] = "Bearer " + token
		}
		client := &http.Client{Transport: watchTransport{fn: s.watchLists,
			next: headerTransport{headers: headers, next: http.DefaultTransport}}}
		t := &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, MaxRetries: 1}
		if s.m.usesOAuth(s.cfg) {
			h, err := s.oauthHandler()
			if err != nil {
				return nil, nil, err
			}
			t.OAuthHandler = h
		}
		return t, nil, nil
	}
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.m.opts.Dir
	if s.cfg.Cwd != "" {
		cmd.Dir = s.cfg.Cwd
		if !strings.HasPrefix(cmd.Dir, "/") {
			cmd.Dir = s.m.opts.Dir + "/" + cmd.Dir
		}
	}
	cmd.Env = slices.Clone(s.m.opts.Environ)
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Env)) {
		cmd.Env = append(cmd.Env, k+"="+s.cfg.Env[k])
	}
	cmd.Stderr = &lineWriter{line: s.stderrLine}
	cmd.WaitDelay = time.Second // a child that keeps stderr open does not hold the exit back
	proc, stdout, stdin, err := startProcess(cmd)
	if err != nil {
		return nil, nil, err
	}
	return &sdk.IOTransport{Reader: readCloser{Reader: &lineWatch{r: stdout, fn: s.watchLists}, Closer: stdout}, Writer: stdin}, proc, nil
}

// stderrLine logs a line the server wrote to stderr, and keeps it to say
// why the server failed.
func (s *server) stderrLine(line string) {
	s.m.opts.Log.WithLevel(s.m.opts.StderrLevel).Str("server", s.name).Str("stderr", line).Msg("mcp server")
	s.mu.Lock()
	s.stderr.add(line)
	s.mu.Unlock()
}

// stderrWhy is what the server wrote on stderr that says why it failed;
// with anyLine, its last line when none reads as an error.
func (s *server) stderrWhy(anyLine bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return human.Line(s.stderr.why(anyLine), 200)
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}
