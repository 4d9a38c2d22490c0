package orchestrator

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools/mcp"
	"lathe/tools/mcp/mcptest"
)

// mcpEnv is a session whose extra tools are those of an mcptest server
// named "t", over streamable HTTP.
func mcpEnv(t *testing.T, replies []ollamatest.Reply, cfg mcp.Server, opts ...envOption) (*env, *mcp.Manager) {
	t.Helper()
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(srv.Close)
	cfg.URL = srv.URL
	m := mcp.New(t.Context(), mcp.Options{Servers: map[string]mcp.Server{"t": cfg}, Wait: true, Log: zerolog.Nop()})
	m.Start()
	t.Cleanup(m.Close)
	e := newEnv(t, nil, append([]envOption{func(o *Options) { o.Extra = m }}, opts...)...)
	e.srv.Script(replies...)
	return e, m
}

// requestTools names the tools of a chat request.
func chatTools(req api.ChatRequest) []string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// asked approves every call and keeps what it was asked.
type asked struct {
	mu   sync.Mutex
	reqs []ApprovalRequest
}

func (r *asked) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	return Decision{Allow: true}, nil
}

// An MCP tool is offered under its name, called through the loop, asked
// for with the server, the tool and the arguments as sent (repaired), and
// its result goes back to the model.
func TestMCPToolThroughLoop(t *testing.T) {
	rec := &asked{}
	e, _ := mcpEnv(t, []ollamatest.Reply{
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("t__add", `{"a":"2","b":3}`), call("t__echo", `{"text":"hi"}`)}},
		ollamatest.Reply{Content: "5 and hi"},
	}, mcp.Server{}, withApprover(rec))
	res, err := e.run(t.Context(), "add")
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("run: %v %v", res.StopReason, err)
	}
	reqs := e.srv.ChatRequests()
	if names := chatTools(reqs[0]); !slices.Contains(names, "t__add") || !slices.Contains(names, "t__echo") || !slices.Contains(names, "read") {
		t.Errorf("tools of the first request: %v", names)
	}
	got := toolMessages(reqs[1])
	if len(got) != 2 || !strings.HasPrefix(got[0].Content, "5") || got[0].ToolName != "t__add" || got[1].Content != "hi" {
		t.Errorf("results sent back: %+v", got)
	}
	if len(rec.reqs) != 1 {
		t.Fatalf("approvals asked: %+v; want one, for add (echo is read-only)", rec.reqs)
	}
	if r := rec.reqs[0]; r.Server != "t" || r.ServerTool != "add" || r.Tool != "t__add" || r.Args != `{"a":2,"b":3}` {
		t.Errorf("approval request: %+v", r)
	}
	var changed []string
	for _, ev := range e.events {
		if c, ok := ev.(ToolsChanged); ok {
			changed = append(changed, c.Notes...)
		}
	}
	if !slices.Equal(changed, []string{"MCP server t is ready: 8 tools"}) {
		t.Errorf("tools changed: %q", changed)
	}
	if use := e.session.Context(); use.MCP == 0 || use.Tools == 0 {
		t.Errorf("context use: MCP %d, built-in %d", use.MCP, use.Tools)
	}
}

// A server whose config says approve = "always" is not asked for; one
// denied is told so.
func TestMCPApproval(t *testing.T) {
	rec := &asked{}
	e, _ := mcpEnv(t, []ollamatest.Reply{
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("t__add", `{"a":1,"b":1}`)}},
		ollamatest.Reply{Content: "2"},
	}, mcp.Server{Preapproved: true}, withApprover(rec))
	if _, err := e.run(t.Context(), "add"); err != nil {
		t.Fatal(err)
	}
	if len(rec.reqs) != 0 {
		t.Errorf("asked for %d calls of a server approved always", len(rec.reqs))
	}
	if got := lastToolResults(t, e.srv); len(got) != 1 || !strings.HasPrefix(got[0].Content, "2") {
		t.Errorf("result: %+v", got)
	}

	e2, _ := mcpEnv(t, []ollamatest.Reply{
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("t__add", `{"a":1,"b":1}`)}},
		ollamatest.Reply{Content: "denied"},
	}, mcp.Server{}, withApprover(Rules{Denial: "no"}))
	if _, err := e2.run(t.Context(), "add"); err != nil {
		t.Fatal(err)
	}
	if got := lastToolResults(t, e2.srv); len(got) != 1 || !strings.HasPrefix(got[0].Content, "denied") {
		t.Errorf("denied: %+v", got)
	}
}

// Ask mode (as plan mode) offers only the MCP tools that only read.
func TestMCPReadOnlyMode(t *testing.T) {
	e, _ := mcpEnv(t, []ollamatest.Reply{
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("t__add", `{"a":1,"b":1}`)}},
		ollamatest.Reply{Content: "cannot"},
	}, mcp.Server{}, func(o *Options) { o.Mode = mode.Ask{} })
	if _, err := e.run(t.Context(), "add"); err != nil {
		t.Fatal(err)
	}
	names := chatTools(e.srv.ChatRequests()[0])
	if slices.Contains(names, "t__add") || !slices.Contains(names, "t__echo") {
		t.Errorf("ask mode offers %v", names)
	}
	if got := lastToolResults(t, e.srv); len(got) != 1 || !strings.Contains(got[0].Content, "not available in ask mode") {
		t.Errorf("a call to add in ask mode: %+v", got)
	}
}

// A server's progress reaches the events of the call it is about.
func TestMCPProgress(t *testing.T) {
	e, _ := mcpEnv(t, []ollamatest.Reply{
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("t__slow", `{}`)}},
	}, mcp.Server{})
	ctx, cancel := context.WithCancel(t.Context())
	var got []ToolProgress
	res, err := e.session.Run(ctx, "count", func(ev Event) {
		if p, ok := ev.(ToolProgress); ok {
			got = append(got, p)
			if len(got) == 3 {
				cancel() // Esc: the call is cancelled on the server
			}
		}
	})
	if err != nil || res.StopReason != StopInterrupted {
		t.Fatalf("run: %v %v", res.StopReason, err)
	}
	if len(got) != 3 || got[2].Text != "counting · 3/3" || got[2].Turn != 1 || got[2].Index != 0 {
		t.Errorf("progress = %+v", got)
	}
}

// A server's list_changed is not applied in the middle of a run, nor at
// the start of the next: requests stay append-only. A mode change applies
// it.
func TestMCPListChangedBetweenRuns(t *testing.T) {
	e, m := mcpEnv(t, []ollamatest.Reply{
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("t__grow", `{}`)}},
		ollamatest.Reply{Content: "grown"},
		ollamatest.Reply{Content: "again"},
		ollamatest.Reply{Content: "after a mode change"},
	}, mcp.Server{})
	if _, err := e.run(t.Context(), "grow"); err != nil {
		t.Fatal(err)
	}
	waitForTool(t, m, "extra")
	if _, err := e.run(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []mode.Mode{mode.Ask{}, mode.Build{}} {
		if err := e.session.SetMode(t.Context(), m, "test"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.run(t.Context(), "and now"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	first := chatTools(reqs[0])
	for i, r := range reqs[:3] {
		if got := chatTools(r); !slices.Equal(got, first) || slices.Contains(got, "t__extra") {
			t.Errorf("request %d offers %v; want %v", i+1, got, first)
		}
	}
	if got := chatTools(reqs[3]); !slices.Contains(got, "t__extra") {
		t.Errorf("after the mode change: %v", got)
	}
}

func waitForTool(t *testing.T, m *mcp.Manager, tool string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		for _, st := range m.Servers() {
			if slices.ContainsFunc(st.Tools, func(s mcp.ToolStatus) bool { return s.Tool == tool }) {
				return
			}
		}
		m.Reload(ctx) // reads the list now; what it found is offered only when asked for the latest
	}
	t.Fatalf("the server never listed %s", tool)
}

// A call to an MCP tool written as text is recovered and run, as one to a
// built-in tool is.
func TestMCPTextCall(t *testing.T) {
	e, _ := mcpEnv(t, []ollamatest.Reply{
		{Content: "```json\n{\"name\": \"t__echo\", \"arguments\": {\"text\": \"from text\"}}\n```"},
		{Content: "done"},
	}, mcp.Server{})
	res, err := e.run(t.Context(), "echo")
	if err != nil || res.Recoveries.TextCalls != 1 {
		t.Fatalf("run: %v, recoveries %+v", err, res.Recoveries)
	}
	if got := lastToolResults(t, e.srv); len(got) != 1 || got[0].Content != "from text" || got[0].ToolName != "t__echo" {
		t.Errorf("result: %+v", got)
	}
}

// A tool's image goes to a model that can see it, and only its name to one
// that cannot.
func TestMCPImages(t *testing.T) {
	for _, vision := range []bool{true, false} {
		caps := []string{ollamatest.CapCompletion, ollamatest.CapTools}
		if vision {
			caps = append(caps, ollamatest.CapVision)
		}
		srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
		t.Cleanup(srv.Close)
		m := mcp.New(t.Context(), mcp.Options{Servers: map[string]mcp.Server{"t": {URL: srv.URL}}, Wait: true, Log: zerolog.Nop()})
		m.Start()
		t.Cleanup(m.Close)
		e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", Capabilities: caps})},
			func(o *Options) { o.Extra = m })
		e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("t__picture", `{}`)}}, ollamatest.Reply{Content: "a picture"})
		if _, err := e.run(t.Context(), "show"); err != nil {
			t.Fatal(err)
		}
		got := lastToolResults(t, e.srv)
		if len(got) != 1 || !strings.Contains(got[0].Content, "[image 1: image/png") {
			t.Fatalf("vision %v: %+v", vision, got)
		}
		if n := len(got[0].Images); vision && n != 1 || !vision && n != 0 {
			t.Errorf("vision %v: %d images sent", vision, n)
		}
	}
}
