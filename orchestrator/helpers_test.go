package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/prompts"
	"lathe/tools"
)

// probe is a tool for loop tests: it records its calls and runs fn.
type probe struct {
	name string
	kind tools.Kind
	fn   func(ctx context.Context, args map[string]any) (tools.Result, error)
	log  *callLog
}

func (p *probe) Name() string     { return p.name }
func (p *probe) Kind() tools.Kind { return p.kind }
func (p *probe) Spec() provider.ToolSpec {
	return provider.ToolSpec{Name: p.name, Description: "probe " + p.name,
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}

func (p *probe) Prepare(raw json.RawMessage) (tools.Call, error) {
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	if _, bad := args["invalid"]; bad {
		return nil, errors.New(`argument "invalid" is not allowed`)
	}
	return &probeCall{p: p, args: args}, nil
}

type probeCall struct {
	p    *probe
	args map[string]any
}

func (c *probeCall) Subject() string {
	s, _ := c.args["path"].(string)
	return s
}

func (c *probeCall) Run(ctx context.Context, _ tools.Caller) (tools.Result, error) {
	c.p.log.add(c.p.name + ":start:" + c.Subject())
	defer c.p.log.add(c.p.name + ":end:" + c.Subject())
	if c.p.fn == nil {
		return tools.Result{Content: c.p.name + " " + c.Subject() + " ok", Summary: "ok"}, nil
	}
	return c.p.fn(ctx, c.args)
}

// callLog records tool activity in order, safely across goroutines.
type callLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, s)
}

func (l *callLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.entries...)
}

// allow approves everything.
type allow struct{}

func (allow) Approve(context.Context, ApprovalRequest) (Decision, error) {
	return Decision{Allow: true}, nil
}

// env is a session wired to a fake server and probe tools.
type env struct {
	srv     *ollamatest.Server
	session *Session
	log     *callLog
	events  []Event
}

type envOption func(*Options)

func withLimits(f func(*config.Limits)) envOption {
	return func(o *Options) { f(&o.Config.Limits) }
}

func withApprover(a Approver) envOption { return func(o *Options) { o.Approver = a } }

func withTools(ts ...tools.Tool) envOption {
	return func(o *Options) { o.Tools = tools.NewRegistry(ts...) }
}

// newEnv starts a fake server (with srvOpts) and a session whose tools are
// probes: read (read-only), write and slow_read (read-only, fn = nil).
func newEnv(t *testing.T, srvOpts []ollamatest.Option, opts ...envOption) *env {
	t.Helper()
	srv := ollamatest.New(t, srvOpts...)
	log := &callLog{}
	e := &env{srv: srv, log: log}
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	o := Options{
		Tools: tools.NewRegistry(
			&probe{name: "read", kind: tools.KindRead, log: log},
			&probe{name: "write", kind: tools.KindWrite, log: log},
		),
		Approver: allow{},
		Log:      zerolog.Nop(),
		Config:   cfg,
		Env:      prompts.Env{Dir: "/src/project", OS: "linux", Arch: "amd64"},
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.Provider == nil {
		o.Provider = fakeProvider(t, srv, o.Config)
	}
	e.session = New(o)
	return e
}

// fakeProvider is the Ollama backend on the fake server, with cfg's model
// options.
func fakeProvider(t testing.TB, srv *ollamatest.Server, cfg config.Config) *ollama.Client {
	t.Helper()
	base, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	return ollama.New(ollama.Options{URL: base, Options: cfg.Options, KeepAlive: cfg.KeepAlive.Duration})
}

// run runs prompt and records the events.
func (e *env) run(ctx context.Context, prompt string) (Result, error) {
	return e.session.Run(ctx, prompt, func(ev Event) { e.events = append(e.events, ev) })
}

// call is a scripted tool call with JSON arguments.
func call(name, args string) ollamatest.ToolCall {
	return ollamatest.ToolCall{Name: name, Arguments: json.RawMessage(args)}
}

// toolMessages returns the role:"tool" messages of a request.
func toolMessages(req api.ChatRequest) []api.Message {
	var out []api.Message
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// lastToolResults returns the contents of the tool messages at the end of
// the last chat request (the results of the previous turn).
func lastToolResults(t *testing.T, srv *ollamatest.Server) []api.Message {
	t.Helper()
	reqs := srv.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("no chat request was sent")
	}
	msgs := reqs[len(reqs)-1].Messages
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == "tool" {
		i--
	}
	return msgs[i:]
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
