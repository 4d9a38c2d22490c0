package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"lathe/tools"
	"lathe/tools/mcp/mcptest"
)

// The test binary is the stdio server too, started again with
// LATHE_MCPTEST=1.
func TestMain(m *testing.M) {
	if os.Getenv("LATHE_MCPTEST") == "1" {
		mcptest.Main()
	}
	os.Exit(m.Run())
}

// stdio is a server that runs the test binary as mcptest, with env.
func stdio(t *testing.T, env map[string]string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"LATHE_MCPTEST": "1"}
	for k, v := range env {
		e[k] = v
	}
	return Server{Command: exe, Env: e}
}

// notices records what the manager told.
type notices struct {
	mu   sync.Mutex
	list []Notice
	ch   chan Notice
}

func newNotices() *notices { return &notices{ch: make(chan Notice, 16)} }

func (n *notices) add(x Notice) {
	n.mu.Lock()
	n.list = append(n.list, x)
	n.mu.Unlock()
	n.ch <- x
}

// next waits for the next notice.
func (n *notices) next(t *testing.T) Notice {
	t.Helper()
	select {
	case x := <-n.ch:
		return x
	case <-time.After(20 * time.Second):
		t.Fatal("no notice came")
	}
	return Notice{}
}

func start(t *testing.T, opts Options) (*Manager, *notices) {
	t.Helper()
	n := newNotices()
	opts.Notify = n.add
	opts.Environ = os.Environ()
	opts.Dir = t.TempDir()
	opts.Wait = true
	opts.Log = zerolog.Nop()
	m := New(t.Context(), opts)
	m.Start()
	t.Cleanup(m.Close)
	return m, n
}

// toolsOf returns the tools offered by name, waiting for the servers to start.
func toolsOf(t *testing.T, m *Manager, numCtx int, latest, run bool) (map[string]tools.Tool, []string, []string) {
	t.Helper()
	list, notes := m.Tools(t.Context(), numCtx, latest, run)
	byName := map[string]tools.Tool{}
	var names []string
	for _, tl := range list {
		byName[tl.Name()] = tl
		names = append(names, tl.Name())
	}
	return byName, names, notes
}

// run prepares and runs a call.
func run(t *testing.T, ctx context.Context, tl tools.Tool, args string) tools.Result {
	t.Helper()
	return runFor(t, ctx, tools.Caller{}, tl, args)
}

// runFor prepares and runs a call for caller.
func runFor(t *testing.T, ctx context.Context, caller tools.Caller, tl tools.Tool, args string) tools.Result {
	t.Helper()
	call, err := tl.Prepare(json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tl.Name(), args, err)
	}
	res, err := call.Run(ctx, caller)
	if err != nil {
		t.Fatalf("%s %s: %v", tl.Name(), args, err)
	}
	return res
}

// TestStdioServer lists a server's tools over stdio, page after page, and
// calls them: names, kinds, trimmed specs, repaired arguments, errors,
// images and resources, and progress.
func TestStdioServer(t *testing.T) {
	m, _ := start(t, Options{Servers: map[string]Server{"t": stdio(t, nil)}})
	byName, names, notes := toolsOf(t, m, 32768, false, true)
	want := []string{"t__echo", "t__add", "t__slow", "t__hang", "t__fail", "t__picture", "t__crash", "t__grow"}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(names))
	if !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v (every page of the list)", got, want)
	}
	if len(notes) != 1 || notes[0] != "MCP server t is ready: 8 tools" {
		t.Errorf("notes = %q", notes)
	}
	echo, add := byName["t__echo"], byName["t__add"]
	if echo.Kind() != tools.KindRead || add.Kind() != tools.KindExternal {
		t.Errorf("kinds: echo %v, add %v; want read (readOnlyHint), external", echo.Kind(), add.Kind())
	}
	spec := echo.Spec()
	if spec.Description != "Echo the text back." || bytes.Contains(spec.Parameters, []byte("examples")) ||
		!bytes.Contains(spec.Parameters, []byte(`"description":"What to echo."`)) {
		t.Errorf("spec not trimmed: %q %s", spec.Description, spec.Parameters)
	}
	if res := run(t, t.Context(), echo, `{"text":"hi"}`); res.Content != "hi" || res.IsError {
		t.Errorf("echo = %+v", res)
	}
	res := run(t, t.Context(), add, `"{\"a\": \"2\", \"b\": 3, \"c\": 1}"`)
	if !strings.HasPrefix(res.Content, "5") || len(res.Repairs) != 3 || !strings.Contains(res.Content, "ignored unknown argument(s): c") {
		t.Errorf("add with repairs = %+v", res)
	}
	if _, err := add.Prepare(json.RawMessage(`{"a":1}`)); err == nil || !strings.Contains(err.Error(), `missing required argument "b"`) {
		t.Errorf("a missing argument: err = %v", err)
	}
	if res := run(t, t.Context(), byName["t__fail"], `{}`); !res.IsError || res.Content != "error: the thing is broken" {
		t.Errorf("fail = %+v", res)
	}
	res = run(t, t.Context(), byName["t__picture"], `{}`)
	if len(res.Images) != 1 || !bytes.Equal(res.Images[0].Data, mcptest.PNG) ||
		!strings.Contains(res.Content, "here it is\n[image 1: image/png") ||
		!strings.Contains(res.Content, "[resource file:///notes.txt (text/plain)]\na note") {
		t.Errorf("picture = %q, %d images", res.Content, len(res.Images))
	}
	progress := make(chan string, 3)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan tools.Result)
	caller := tools.Caller{Progress: func(s string) { progress <- s }}
	go func() { done <- runFor(t, ctx, caller, byName["t__slow"], `{}`) }()
	for _, want := range []string{"counting · 1/3", "counting · 2/3", "counting · 3/3"} {
		if got := <-progress; got != want {
			t.Errorf("progress %q, want %q", got, want)
		}
	}
	cancel()
	<-done
	st := m.Servers()
	if len(st) != 1 || st[0].State != StateReady || len(st[0].Tools) != 8 || st[0].Tokens == 0 || st[0].Transport != "stdio" {
		t.Errorf("status = %+v", st)
	}
}

// TestHTTPServer speaks streamable HTTP, with the configured headers and
// the token read from the environment.
func TestHTTPServer(t *testing.T) {
	var auth, team string
	var mu sync.Mutex
	h := mcptest.Handler(mcptest.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth, team = r.Header.Get("Authorization"), r.Header.Get("X-Team")
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the manager closed its streams
	cfg := Server{URL: srv.URL, Headers: map[string]string{"X-Team": "core"}, BearerTokenEnv: "DOCS_TOKEN"}
	m, _ := start(t, Options{Servers: map[string]Server{"docs": cfg},
		Getenv: func(k string) string { return map[string]string{"DOCS_TOKEN": "s3cret"}[k] }})
	byName, _, _ := toolsOf(t, m, 32768, false, true)
	echo, ok := byName["docs__echo"]
	if !ok {
		t.Fatalf("no docs__echo: %v", m.Servers())
	}
	if res := run(t, t.Context(), echo, `{"text":"over http"}`); res.Content != "over http" {
		t.Errorf("echo = %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if auth != "Bearer s3cret" || team != "core" {
		t.Errorf("headers sent: Authorization %q, X-Team %q", auth, team)
	}
}

// A token variable that is not set fails the server's start, said once.
func TestHTTPTokenMissing(t *testing.T) {
	cfg := Server{URL: "http://127.0.0.1:1/mcp", BearerTokenEnv: "NOPE"}
	m, n := start(t, Options{Servers: map[string]Server{"docs": cfg}})
	if x := n.next(t); !strings.Contains(x.Text, "MCP server docs did not start: NOPE, which bearer_token_env names, is not set") {
		t.Errorf("notice = %q", x.Text)
	}
	if list, _ := m.Tools(t.Context(), 32768, false, true); len(list) != 0 {
		t.Errorf("a failed server offered %d tools", len(list))
	}
}

// A call that hangs is cancelled on the server, by the user (ctx) or by
// the server's timeout; the server stays up.
func TestHangCancelled(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "cancelled")
	cfg := stdio(t, map[string]string{"MCPTEST_CANCELLED": marker})
	m, _ := start(t, Options{Servers: map[string]Server{"t": cfg}})
	byName, _, _ := toolsOf(t, m, 32768, false, true)
	hang := byName["t__hang"]
	started := make(chan string, 1)
	ctx, cancel := context.WithCancel(t.Context())
	call, err := hang.Prepare(nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan tools.Result)
	go func() {
		res, _ := call.Run(ctx, tools.Caller{Progress: func(s string) { started <- s }})
		done <- res
	}()
	<-started // the server has the call
	cancel()
	if res := <-done; !res.IsError {
		t.Errorf("a cancelled call: %+v", res)
	}
	waitFile(t, marker)

	os.Remove(marker)
	cfg.Timeout = 500 * time.Millisecond
	m2, _ := start(t, Options{Servers: map[string]Server{"t": cfg}})
	byName, _, _ = toolsOf(t, m2, 32768, false, true)
	res := run(t, t.Context(), byName["t__hang"], `{}`)
	if !res.IsError || !strings.Contains(res.Content, "took longer than 500ms and was cancelled on the server") {
		t.Errorf("a call past the timeout: %+v", res)
	}
	waitFile(t, marker)
	if res := run(t, t.Context(), byName["t__echo"], `{"text":"still here"}`); res.Content != "still here" {
		t.Errorf("after a timeout: %+v", res)
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	for range 400 {
		if b, err := os.ReadFile(path); err == nil && string(b) == "cancelled" {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("the server was not told of the cancellation (%s)", path)
}

// A server that crashes is told once, restarted once in a run, and its
// tools answered with why it is down until it is back; a second crash in
// the run leaves it down, and the next run may restart it.
func TestCrash(t *testing.T) {
	m, n := start(t, Options{Servers: map[string]Server{"t": stdio(t, nil)}})
	byName, _, _ := toolsOf(t, m, 32768, false, true)
	res := run(t, t.Context(), byName["t__crash"], `{}`)
	if !res.IsError || !strings.Contains(res.Content, "MCP server t is not running (it stopped during the call)") {
		t.Errorf("the crashing call: %+v", res)
	}
	x := n.next(t)
	if !x.Failed || !strings.Contains(x.Text, "MCP server t failed: it stopped: exit status 3: mcptest: crashing as asked; starting it again") {
		t.Errorf("notice = %q", x.Text)
	}
	m.WaitStarted(t.Context())
	if res := run(t, t.Context(), byName["t__echo"], `{"text":"back"}`); res.Content != "back" {
		t.Errorf("after the restart: %+v", res)
	}
	run(t, t.Context(), byName["t__crash"], `{}`)
	if x := n.next(t); strings.Contains(x.Text, "starting it again") {
		t.Errorf("restarted twice in a run: %q", x.Text)
	}
	res = run(t, t.Context(), byName["t__echo"], `{"text":"x"}`)
	if !res.IsError || !strings.Contains(res.Content, "is not running (it stopped: exit status 3") {
		t.Errorf("a call to the server down: %+v", res)
	}
	if list, _ := m.Tools(t.Context(), 32768, false, true); len(list) != 8 {
		t.Errorf("the tools of a server down left the request: %d", len(list))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.list) != 2 {
		t.Errorf("notices = %+v, want one per crash", n.list)
	}
}

// A server that does not start is reported once, with what it said on
// stderr; one that does not answer is given up after the start timeout.
func TestStartFailures(t *testing.T) {
	servers := map[string]Server{
		"broken": stdio(t, map[string]string{"MCPTEST_START": "crash"}),
		"stuck":  stdio(t, map[string]string{"MCPTEST_START": "hang"}),
		"absent": {Command: filepath.Join(t.TempDir(), "no-such-server")},
	}
	m, n := start(t, Options{Servers: servers, StartTimeout: 300 * time.Millisecond})
	got := map[string]string{}
	for range 3 {
		x := n.next(t)
		got[x.Server] = x.Text
	}
	if strings.Contains(got["stuck"], "mcptest: started") {
		t.Errorf("stuck: %q gives its banner as the reason", got["stuck"])
	}
	for name, want := range map[string]string{
		"broken": "MCP server broken did not start: it stopped: exit status 2: mcptest: cannot start: no database",
		"stuck":  "MCP server stuck did not start: it did not answer within 300ms (mcp.start_timeout); left out of this run",
		"absent": "MCP server absent did not start: fork/exec",
	} {
		if !strings.HasPrefix(got[name], want) {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	if list, _ := m.Tools(t.Context(), 32768, false, true); len(list) != 0 {
		t.Errorf("%d tools from servers that did not start", len(list))
	}
	for _, st := range m.Servers() {
		if st.State != StateFailed {
			t.Errorf("%s: %s", st.Name, st.State)
		}
	}
}

// A server's list_changed is applied only when asked for the latest lists
// (a mode change, a reload), never at a run's start.
func TestListChanged(t *testing.T) {
	m, _ := start(t, Options{Servers: map[string]Server{"t": stdio(t, nil)}})
	byName, _, _ := toolsOf(t, m, 32768, false, true)
	run(t, t.Context(), byName["t__grow"], `{}`)
	for i := 0; ; i++ {
		if slices.ContainsFunc(m.Servers()[0].Tools, func(s ToolStatus) bool { return s.Tool == "extra" }) {
			break
		}
		if i == 400 {
			t.Fatal("the new list was not read")
		}
		time.Sleep(25 * time.Millisecond)
	}
	if byName, _, notes := toolsOf(t, m, 32768, false, true); len(byName) != 8 || len(notes) != 0 {
		t.Errorf("at a run's start: %d tools, notes %q; want the list offered before", len(byName), notes)
	}
	byName, _, notes := toolsOf(t, m, 32768, true, false)
	if _, ok := byName["t__extra"]; !ok || len(notes) != 1 || notes[0] != "MCP server t changed its tools: 8 before, 9 now" {
		t.Errorf("latest: %d tools, notes %q", len(byName), notes)
	}
}

// Past the budget, the tools are offered through mcp_search and mcp_call,
// which find and call them as they are; in a mode that only reads, only
// the tools that only read.
func TestBudgetGateway(t *testing.T) {
	cfg := stdio(t, map[string]string{"MCPTEST_PADDING": "30"})
	m, _ := start(t, Options{Servers: map[string]Server{"t": cfg}})
	byName, names, notes := toolsOf(t, m, 8192, false, true)
	if !slices.Equal(names, []string{"mcp_search", "mcp_call"}) {
		t.Fatalf("tools = %v", names)
	}
	if len(notes) != 2 || !strings.Contains(notes[1], "the 38 tools of the MCP servers would take ~") {
		t.Errorf("notes = %q", notes)
	}
	res := run(t, t.Context(), byName["mcp_search"], `{"query":"add integers"}`)
	if !strings.Contains(res.Content, "t__add: Add two integers.") || !strings.Contains(res.Content, `"required":["a","b"]`) {
		t.Errorf("search = %s", res.Content)
	}
	call := byName["mcp_call"]
	c, err := call.Prepare(json.RawMessage(`{"tool":"t__add","arguments":{"a":1,"b":"2"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if k := tools.CallKind(c, call.Kind()); k != tools.KindExternal {
		t.Errorf("the kind of a call to t__add = %v", k)
	}
	if o, ok := tools.AsOrigin(c); !ok {
		t.Error("no origin")
	} else if server, tool, name := o.Origin(); server != "t" || tool != "add" || name != "t__add" {
		t.Errorf("origin = %s %s %s", server, tool, name)
	}
	if res, err := c.Run(t.Context(), tools.Caller{}); err != nil || !strings.HasPrefix(res.Content, "3") {
		t.Errorf("mcp_call add = %+v %v", res, err)
	}
	if _, err := call.Prepare(json.RawMessage(`{"tool":"t__nope"}`)); err == nil || !strings.Contains(err.Error(), `no MCP tool is named "t__nope"`) {
		t.Errorf("unknown: %v", err)
	}
	ro := call.(interface{ ReadOnly() tools.Tool }).ReadOnly()
	if ro.Kind() != tools.KindRead {
		t.Errorf("read-only mcp_call kind %v", ro.Kind())
	}
	if _, err := ro.Prepare(json.RawMessage(`{"tool":"t__add","arguments":{"a":1,"b":2}}`)); err == nil ||
		!strings.Contains(err.Error(), "t__add may change things") {
		t.Errorf("read-only mcp_call of add: %v", err)
	}
	if _, err := ro.Prepare(json.RawMessage(`{"tool":"t__echo","arguments":{"text":"x"}}`)); err != nil {
		t.Errorf("read-only mcp_call of echo: %v", err)
	}
	res = run(t, t.Context(), byName["mcp_search"].(interface{ ReadOnly() tools.Tool }).ReadOnly(), `{"query":"add"}`)
	if strings.Contains(res.Content, "t__add:") {
		t.Errorf("a read-only search found add: %s", res.Content)
	}
	// A window large enough takes them by name again.
	if _, names, notes := toolsOf(t, m, 1<<20, false, true); len(names) != 38 || len(notes) != 1 {
		t.Errorf("a large window: %d tools, notes %q", len(names), notes)
	}
}

// A project's server does not start until trusted.
func TestProjectServerUntrusted(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "calls")
	cfg := stdio(t, map[string]string{"MCPTEST_CALLS": marker})
	cfg.Project = true
	m, _ := start(t, Options{Servers: map[string]Server{"p": cfg}})
	if list, _ := m.Tools(t.Context(), 32768, false, true); len(list) != 0 {
		t.Fatalf("an untrusted project server offered %d tools", len(list))
	}
	if got := m.Untrusted(); !slices.Equal(got, []string{"p"}) {
		t.Errorf("Untrusted = %v", got)
	}
	if st := m.Servers()[0]; st.State != StateUntrusted || !st.Project {
		t.Errorf("status = %+v", st)
	}
	if err := m.SetEnabled("p", true); err == nil {
		t.Error("an untrusted server was turned on")
	}
	m.Trust()
	m.WaitStarted(t.Context())
	if list, _ := m.Tools(t.Context(), 32768, false, true); len(list) != 8 {
		t.Errorf("trusted: %d tools", len(list))
	}
}

// A server turned off for the session stops offering its tools.
func TestSetEnabled(t *testing.T) {
	m, _ := start(t, Options{Servers: map[string]Server{"t": stdio(t, nil)}})
	toolsOf(t, m, 32768, false, true)
	if err := m.SetEnabled("t", false); err != nil {
		t.Fatal(err)
	}
	if list, _ := m.Tools(t.Context(), 32768, false, true); len(list) != 0 {
		t.Errorf("off: %d tools", len(list))
	}
	if err := m.SetEnabled("t", true); err != nil {
		t.Fatal(err)
	}
	if _, names, notes := toolsOf(t, m, 32768, false, true); len(names) != 8 || len(notes) != 1 {
		t.Errorf("on again: %v %q", names, notes)
	}
	if err := m.SetEnabled("nope", true); err == nil {
		t.Error("no error for an unknown server")
	}
}
