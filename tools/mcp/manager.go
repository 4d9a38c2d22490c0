// Package mcp is lathe's MCP client: it starts the configured MCP servers in
// the background, offers their tools to the model under names of their own
// (SERVER__TOOL) with schemas trimmed for a small prompt, or through one tool
// that searches them and one that calls them when they would take too much
// of the context window, and calls them.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
	"lathe/tools"
)

// Options are a Manager's servers and settings.
type Options struct {
	// Servers are the configured servers, by name.
	Servers map[string]Server
	// Trusted lets the servers that need trust start with what they run
	// now (--trust-project-mcp).
	Trusted bool
	// Seal says what a server would run now (see Seal); nil: only the
	// project's servers need trust, for their definitions.
	Seal func(name string) Seal
	// Sealed are the seals the user trusted servers with before, by name:
	// one whose seal is still that starts without asking.
	Sealed map[string]string
	// Dir is the working directory, where stdio servers start unless
	// their cwd says otherwise.
	Dir string
	// Environ is the environment stdio servers start with, their env on
	// top.
	Environ []string
	// Getenv reads the variables bearer_token_env names.
	Getenv func(string) string
	Log    zerolog.Logger
	// StderrLevel is the level what a stdio server writes on stderr is
	// logged at, a line each (zero: debug).
	StderrLevel zerolog.Level
	// OutputBytes caps a call's result (limits.tool_output_bytes; zero
	// means tools.DefaultOutputBytes).
	OutputBytes int
	// Budget is the share of num_ctx the tool schemas may take
	// (mcp.budget; zero means DefaultBudget).
	Budget float64
	// Wait makes a run's first request wait for the servers still
	// starting (headless, where nobody would see them join later).
	Wait bool
	// Notify is told what happens in the background: a server that did
	// not start, stopped or stopped answering. It must not block.
	Notify func(Notice)
	// Version is lathe's, told to the servers.
	Version string
	// StartTimeout bounds a server's start (default 30s): one that is not
	// ready by then is given up, and told.
	StartTimeout time.Duration
	// TokenDir is where the OAuth tokens of HTTP servers are kept; empty,
	// lathe does not authorize with them.
	TokenDir string
	// Sampler has the model answer the servers' messages; nil refuses
	// them.
	Sampler Sampler
}

// DefaultBudget is the share of num_ctx the tool schemas may take when
// the caller sets none.
const DefaultBudget = 0.1

// Notice is something a server did that the user should know.
type Notice struct {
	Server string
	Text   string
	Failed bool
}

// Manager runs the configured MCP servers and offers their tools. Its
// methods are safe for concurrent use.
type Manager struct {
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	servers []*server // by name

	mu      sync.Mutex
	gateway bool     // the tools last offered were the gateway's
	ask     Asker    // who answers the servers' questions; nil: nobody can
	roots   []string // the directories the servers are told of, the workspace first
}

// New returns a Manager for the servers; Start starts them. ctx bounds
// what the Manager does in the background (starting servers, reading their
// tool lists again, checking on one that stopped answering): once it is
// done nothing more starts and nothing more is reported. Close stops the
// servers.
func New(ctx context.Context, opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Notify == nil {
		opts.Notify = func(Notice) {}
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
	}
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	ctx, cancel := context.WithCancel(ctx)
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel}
	if opts.Dir != "" {
		m.roots = []string{opts.Dir}
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Servers)) {
		s := newServer(m, name, opts.Servers[name])
		// What will not start is known before Start: a UI asks for the
		// trust it needs at once, and starts the rest after its first
		// frame.
		switch {
		case s.cfg.Off:
			s.setState(StateOff, "enabled = false")
		case s.cfg.URL == "" || s.cfg.Project:
			m.admit(s)
		}
		m.servers = append(m.servers, s)
	}
	return m
}

// Start starts every enabled server in the background and returns at once:
// one that needs trust only once trusted with what it runs.
func (m *Manager) Start() {
	for _, s := range m.servers {
		switch {
		case s.cfg.Off:
			s.setState(StateOff, "enabled = false")
		case s.currentState() != StateUntrusted:
			s.start()
		}
	}
}

// Untrusted lists the servers that wait for the user's trust: the
// project's, and those that run files of the project.
func (m *Manager) Untrusted() []string {
	var out []string
	for _, s := range m.servers {
		if s.currentState() == StateUntrusted {
			out = append(out, s.name)
		}
	}
	return out
}

// Trust trusts the servers that wait for it with what they run now, and
// starts them.
func (m *Manager) Trust() {
	for _, s := range m.servers {
		if s.currentState() == StateUntrusted {
			m.trust(s)
			s.start()
		}
	}
}

// Close stops every server, waiting a few seconds at most.
func (m *Manager) Close() {
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(func() { s.stop(StateOff, "lathe ended") })
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		m.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// SetEnabled turns a server on or off for the rest of the session: off, it
// stops, and its tools leave the model's at the next request.
func (m *Manager) SetEnabled(name string, on bool) error {
	s := m.server(name)
	switch {
	case s == nil:
		return fmt.Errorf("no MCP server is named %q", name)
	case on && s.currentState() == StateUntrusted:
		return fmt.Errorf("%s waits for your trust: /mcp trust starts it", name)
	case on:
		s.start()
	default:
		s.stop(StateOff, "turned off for this session")
	}
	return nil
}

// Reload starts the failed servers again and reads every ready server's
// tool list anew, waiting for both within ctx; the next request offers
// what it found.
func (m *Manager) Reload(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range m.servers {
		switch s.currentState() {
		case StateFailed:
			s.start()
			wg.Go(func() { s.waitStarted(ctx) })
		case StateReady:
			wg.Go(func() { s.relistNow(ctx) })
		}
	}
	wg.Wait()
}

func (m *Manager) server(name string) *server {
	for _, s := range m.servers {
		if s.name == name {
			return s
		}
	}
	return nil
}

// notify tells the user n, once: through Notify, which shows it (a
// one-shot run's stderr, a notice in the UI); the log has it at debug
// level, beside the trace.
// tell tells the user what a server did that did not fail.
func (m *Manager) tell(server, text string) { m.notify(Notice{Server: server, Text: text}) }

// SetAsker makes a the one who answers what the servers ask of the user
// (see Asker); nil declines it all. A UI sets itself once it runs.
func (m *Manager) SetAsker(a Asker) {
	m.mu.Lock()
	m.ask = a
	m.mu.Unlock()
}

func (m *Manager) asker() Asker {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ask
}

// ForgetGrants forgets what the user let the servers do for the session
// (the model answering a server's requests unasked): a new session asks
// again.
func (m *Manager) ForgetGrants() {
	for _, s := range m.servers {
		s.mu.Lock()
		s.samplingGranted = false
		s.mu.Unlock()
	}
}

func (m *Manager) notify(n Notice) {
	m.opts.Log.Debug().Str("server", n.Server).Bool("failed", n.Failed).Msg(n.Text)
	m.opts.Notify(n)
}

// Tools returns the tools to offer in a window of numCtx tokens, and what
// changed, to tell the user before the request that offers it. At a run's
// start (run), a server may be restarted once more in the run. A server's
// tool list, once offered, stays as it was offered until latest (a mode
// change or a reload), so that a server's list_changed never changes the
// tools in the middle of a run; a server that became ready joins at once.
// With Options.Wait, it first waits, within ctx, for the servers still
// starting.
func (m *Manager) Tools(ctx context.Context, numCtx int, latest, run bool) ([]tools.Tool, []string) {
	for _, s := range m.servers {
		if run {
			s.mu.Lock()
			s.restarts = 0
			s.mu.Unlock()
		}
		if m.opts.Wait {
			s.waitStarted(ctx)
		}
	}
	var entries []entry
	var notes []string
	for _, s := range m.servers {
		es, note := s.offer(latest)
		entries = append(entries, es...)
		if note != "" {
			notes = append(notes, note)
		}
	}
	if len(entries) == 0 {
		return nil, notes
	}
	budget := int(m.opts.Budget * float64(numCtx))
	tokens := specTokens(entries)
	gateway := tokens > budget
	m.mu.Lock()
	changed := gateway != m.gateway
	m.gateway = gateway
	m.mu.Unlock()
	if !gateway {
		if changed {
			notes = append(notes, fmt.Sprintf("MCP tools fit their budget again (~%s tokens): the model gets them by name", human.Thousands(tokens)))
		}
		out := make([]tools.Tool, len(entries))
		for i, e := range entries {
			out[i] = e.tool
		}
		return out, notes
	}
	if changed {
		notes = append(notes, gatewayNote(len(entries), tokens, budget, m.opts.Budget))
	}
	return gatewayTools(entries), notes
}

// specTokens estimates what entries' specs add to a request, at 4 bytes a
// token.
func specTokens(entries []entry) int {
	specs := make([]provider.ToolSpec, len(entries))
	for i, e := range entries {
		specs[i] = e.tool.Spec()
	}
	return (provider.SpecsSize(specs) + 3) / 4
}

// Status is a server as /mcp and lathe mcp list show it.
type Status struct {
	Name      string
	Transport string // "stdio" or "http"
	Target    string // the command line, or the URL
	State     State
	Why       string // why it failed, or is off
	Project   bool   // declared by the project
	// Runs are the project's files the server runs, when it waits for
	// trust; Changed, that they (or its definition) changed since it was
	// trusted.
	Runs    []string
	Changed bool
	Tools   []ToolStatus
	// Tokens is about what its tools' schemas add to a request, trimmed
	// as they are sent.
	Tokens int
	// LeftOut are the tools not offered because they require a task.
	LeftOut []string
	// Prompts are its prompts, as slash commands (/server:prompt) with
	// their arguments; Resources its resources.
	Prompts   []PromptInfo
	Resources []ResourceInfo
}

// TrustReason says, plainly, why a server that waits for trust
// (StateUntrusted) does: the project declares it; it is the user's own,
// trusted as the user's config is, but runs files of the project that a
// command in the sandbox may have written; or what it runs changed since
// it was trusted. "" for any other server.
func (s Status) TrustReason() string {
	runs := strings.Join(s.Runs, ", ")
	switch {
	case s.State != StateUntrusted:
		return ""
	case s.Changed && runs == "":
		return "its definition changed since you trusted it"
	case s.Changed:
		return "what it runs changed since you trusted it (" + runs + "), and a command in the sandbox may have changed it"
	case !s.Project:
		return "your own server, but it runs " + runs + " from the project, which a command in the sandbox may have written"
	}
	return "the project declares it, and a cloned repository must not start programs unasked"
}

// ToolStatus is one tool of a server.
type ToolStatus struct {
	Name        string // as the model calls it
	Tool        string // as the server does
	Description string // its first sentence
	ReadOnly    bool
}

// Servers returns every configured server, by name.
func (m *Manager) Servers() []Status {
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

// Starting names the servers still starting, and how long they may take
// still: the start timeout, from their start.
func (m *Manager) Starting() (names []string, left time.Duration) {
	now := time.Now()
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state == StateStarting {
			names = append(names, s.name)
			left = max(left, s.started.Add(m.opts.StartTimeout).Sub(now))
		}
		s.mu.Unlock()
	}
	return names, max(left, 0)
}

// WaitStarted waits, within ctx, for every server still starting.
func (m *Manager) WaitStarted(ctx context.Context) {
	for _, s := range m.servers {
		s.waitStarted(ctx)
	}
}

func (s *server) setState(st State, why string) {
	s.mu.Lock()
	s.state, s.why = st, why
	s.mu.Unlock()
}

func (s *server) currentState() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// waitStarted waits, within ctx, for a start under way to end.
func (s *server) waitStarted(ctx context.Context) {
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
	}
}

// relistNow reads the tool list again and waits for it, within ctx.
func (s *server) relistNow(ctx context.Context) {
	s.mu.Lock()
	cs, gen := s.session, s.gen
	s.mu.Unlock()
	if cs != nil {
		s.listAgain(ctx, cs, gen)
	}
}

// offer returns the server's tools to offer, and a note when they joined
// or changed. A server turned off offers nothing; one that failed keeps
// offering what it offered, whose calls are answered with why it is down.
func (s *server) offer(latest bool) ([]entry, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var note string
	switch {
	case s.state == StateOff || s.state == StateUntrusted:
		s.offered = 0
		return nil, ""
	case s.state == StateReady && s.offered == 0:
		s.offered = s.listGen
		note = fmt.Sprintf("MCP server %s is ready: %s", s.name, human.Plural(len(s.entries(s.listGen)), "tool"))
		if left := s.leftOut(); len(left) > 0 && !s.toldLeftOut {
			s.toldLeftOut = true
			needs := "it needs"
			if len(left) > 1 {
				needs = "they need"
			}
			note += fmt.Sprintf("; %s left out: %s MCP tasks, which lathe does not support yet", strings.Join(left, ", "), needs)
		}
	case s.state == StateReady && latest && s.offered != s.listGen:
		before := len(s.entries(s.offered))
		s.offered = s.listGen
		note = fmt.Sprintf("MCP server %s changed its tools: %d before, %d now", s.name, before, len(s.entries(s.listGen)))
	case s.offered == 0:
		return nil, ""
	}
	for g := range s.tools {
		if g != s.offered && g != s.listGen {
			delete(s.tools, g)
		}
	}
	return s.entries(s.offered), note
}

// entries are the adapters of the tool list numbered gen, built once;
// s.mu is held.
func (s *server) entries(gen int) []entry {
	if es, ok := s.tools[gen]; ok || gen != s.listGen {
		return es
	}
	taken := map[string]bool{}
	var es []entry
	for _, t := range s.latest {
		if len(s.cfg.Tools) > 0 && !slices.Contains(s.cfg.Tools, t.Name) || s.taskOnly[t.Name] {
			continue
		}
		e := s.adapt(t, taken)
		taken[e.tool.Name()] = true
		es = append(es, e)
	}
	s.tools[gen] = es
	return es
}

// leftOut names the tools of the latest list that require a task; s.mu
// is held.
func (s *server) leftOut() []string {
	var out []string
	for _, t := range s.latest {
		if s.taskOnly[t.Name] && (len(s.cfg.Tools) == 0 || slices.Contains(s.cfg.Tools, t.Name)) {
			out = append(out, t.Name)
		}
	}
	return out
}

// adapt makes one of the server's tools a lathe tool.
func (s *server) adapt(t *sdk.Tool, taken map[string]bool) entry {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	name := uniqueName(ToolName(s.name, t.Name), s.name, t.Name, taken)
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if desc == "" && t.Annotations != nil {
		desc = strings.TrimSpace(t.Annotations.Title)
	}
	readOnly := t.Annotations != nil && t.Annotations.ReadOnlyHint && !s.cfg.IgnoreReadOnly
	kind := tools.KindExternal
	if readOnly {
		kind = tools.KindRead
	}
	toolName := t.Name
	return entry{
		tool: external(externalSpec{
			Spec:   provider.ToolSpec{Name: name, Description: firstSentence(desc), Parameters: minifySchema(schema)},
			Schema: schema, Kind: kind, Limit: s.m.opts.OutputBytes,
			Server: s.name, Tool: t.Name, Preapproved: s.cfg.Preapproved,
			Run: func(ctx context.Context, caller tools.Caller, args json.RawMessage) (tools.Result, error) {
				return s.call(ctx, caller, toolName, args)
			},
		}),
		server: s.name, name: t.Name, desc: desc, schema: schema, readOnly: readOnly,
	}
}

// status is the server as /mcp shows it.
func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.name, Transport: s.cfg.transport(), State: s.state, Why: s.why, Project: s.cfg.Project}
	if s.state == StateUntrusted {
		st.Runs, st.Changed = slices.Clone(s.runs), s.changed
	}
	if s.cfg.URL != "" {
		st.Target = s.cfg.URL
	} else {
		st.Target = strings.Join(append([]string{s.cfg.Command}, s.cfg.Args...), " ")
	}
	gen := s.offered
	if gen == 0 || s.state == StateReady {
		gen = s.listGen
	}
	es := s.entries(gen)
	for _, e := range es {
		st.Tools = append(st.Tools, ToolStatus{Name: e.tool.Name(), Tool: e.name, Description: e.tool.Spec().Description, ReadOnly: e.readOnly})
	}
	if len(es) > 0 {
		st.Tokens = specTokens(es)
	}
	st.LeftOut = s.leftOut()
	st.Prompts, st.Resources = s.catalog()
	return st
}
