package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/telemetry/otlptest"
	"lathe/tools/mcp/mcptest"
)

// TestACPMCPServers: an MCP server the editor passes with session/new
// joins the session without a trust prompt: its tools are offered to the
// model, and a call runs on it.
func TestACPMCPServers(t *testing.T) {
	mcp := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(mcp.Close)
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client)
	r.initialize(sdk.ClientCapabilities{})
	if caps := r.initialize(sdk.ClientCapabilities{}).AgentCapabilities.McpCapabilities; !caps.Http || caps.Sse {
		t.Errorf("MCP capabilities %+v; want HTTP (and stdio), no SSE", caps)
	}
	s := r.newSession(sdk.McpServer{Http: &sdk.McpServerHttpInline{Type: "http", Name: "ed", Url: mcp.URL, Headers: []sdk.HttpHeader{}}})
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("ed__echo", `{"text":"from the editor's server"}`)}},
		ollamatest.Reply{Content: "echoed"},
	)
	if reason, err := r.prompt(s.SessionId, sdk.TextBlock("echo")); err != nil || reason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v, %v", reason, err)
	}
	reqs := srv.ChatRequests()
	if !slices.ContainsFunc(reqs[0].Tools, func(tool api.Tool) bool { return tool.Function.Name == "ed__echo" }) {
		t.Errorf("the editor's server's tools were not offered")
	}
	if msgs := reqs[1].Messages; !strings.Contains(msgs[len(msgs)-1].Content, "from the editor's server") {
		t.Errorf("the call's result %q", msgs[len(msgs)-1].Content)
	}
	_, err := r.conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: r.dir,
		McpServers: []sdk.McpServer{{Sse: &sdk.McpServerSseInline{Type: "sse", Name: "old", Url: mcp.URL, Headers: []sdk.HttpHeader{}}}}})
	if err == nil {
		t.Errorf("an SSE server was taken")
	}
}

// TestACPBadInput: what is not JSON-RPC is answered as JSON-RPC says,
// and lathe goes on: a line that is not JSON gets a parse error with a
// null id, a batch an invalid request, an unknown method "method not
// found", a prompt for no session invalid params; stdin closing ends
// lathe with exit 0, having written nothing but JSON-RPC to stdout.
func TestACPBadInput(t *testing.T) {
	srv := ollamatest.New(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		code <- Run(context.Background(), []string{"acp"}, inR, outW, &stderr, acpEnv(t, srv))
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	exchange := func(in string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, in+"\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s", in)
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("stdout %q is not JSON", lines.Text())
		}
		return m
	}
	tests := []struct {
		name, in string
		id       any
		code     float64
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":`, nil, -32700},
		{"batch", `[{"jsonrpc":"2.0","id":2,"method":"initialize"}]`, nil, -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"session/dance","params":{}}`, 3.0, -32601},
		{"no session", `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"hi"}]}}`, 4.0, -32602},
		{"bad params", `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"one"}}`, 5.0, -32602},
	}
	for _, tt := range tests {
		m := exchange(tt.in)
		e, _ := m["error"].(map[string]any)
		if m["id"] != tt.id || e == nil || e["code"] != tt.code {
			t.Errorf("%s: answered %v; want error %v with id %v", tt.name, m, tt.code, tt.id)
		}
	}
	// A client asking for a later version than lathe speaks gets lathe's.
	m := exchange(`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":99}}`)
	if r, _ := m["result"].(map[string]any); r == nil || r["protocolVersion"] != 1.0 {
		t.Errorf("initialize after bad input: %v; want protocol version 1", m)
	}
	// A session and a prompt run, to leave nothing of theirs behind
	// either; notifications come between the answers.
	answer := func(id float64, in string) map[string]any {
		t.Helper()
		m := exchange(in)
		for m["id"] != id {
			if !lines.Scan() {
				t.Fatalf("no answer to %s", in)
			}
			m = nil
			json.Unmarshal(lines.Bytes(), &m)
		}
		r, _ := m["result"].(map[string]any)
		if r == nil {
			t.Fatalf("%s: %v", in, m)
		}
		return r
	}
	r := answer(7, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, t.TempDir()))
	srv.Script(ollamatest.Reply{Content: "hi"})
	r = answer(8, fmt.Sprintf(`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`, r["sessionId"]))
	if r["stopReason"] != "end_turn" {
		t.Errorf("prompt: %v", r)
	}
	inW.Close()
	c := <-code
	for lines.Scan() { // the commands update may come last
		if !strings.Contains(lines.Text(), "available_commands_update") {
			t.Errorf("more output %q", lines.Text())
		}
	}
	if c != 0 {
		t.Errorf("exit code %d; want 0", c)
	}
	if left := acpGoroutines(); left != "" {
		t.Errorf("goroutines left behind:\n%s", left)
	}
}

// acpGoroutines are the stacks of the goroutines of lathe acp, or of its
// SDK, still running: none once Run has returned, but for those ending
// on their way out, which it yields to first.
func acpGoroutines() string {
	var left []string
	for range 1000 {
		buf := make([]byte, 1<<20)
		left = nil
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "lathe/ui/acp.") || strings.Contains(g, "coder/acp-go-sdk") {
				left = append(left, g)
			}
		}
		if len(left) == 0 {
			return ""
		}
		runtime.Gosched()
	}
	return strings.Join(left, "\n\n")
}

// TestACPClientGone: the editor going away mid-run (stdin closes) stops
// the run, saves the session as it stands, and lathe exits 0.
func TestACPClientGone(t *testing.T) {
	srv := ollamatest.New(t)
	env := acpEnv(t, srv)
	client := &acpClient{}
	r := startACP(t, srv, env, client)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	srv.Script(ollamatest.Reply{Content: "half an answer", Hang: true, AfterChunks: 2})
	go r.prompt(s.SessionId, sdk.TextBlock("keep this"))
	if err := srv.WaitHanging(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if code := r.close(); code != 0 {
		t.Errorf("exit code %d; want 0", code)
	}
	var out strings.Builder
	if c := Run(t.Context(), []string{"-C", r.dir, "sessions", "--json"}, strings.NewReader(""), &out, io.Discard, env); c != 0 ||
		!strings.Contains(out.String(), string(s.SessionId)) {
		t.Errorf("sessions: %d %s; want the session saved", c, out.String())
	}
}

// TestACPTelemetry: with telemetry configured, lathe acp's runs are
// exported as lathe -p's are, flushed when the editor goes.
func TestACPTelemetry(t *testing.T) {
	rcv := otlptest.New(t, otlptest.HTTP)
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, append(acpEnv(t, srv), "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.Endpoint), client)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	srv.Script(ollamatest.Reply{Content: "hi"})
	if _, err := r.prompt(s.SessionId, sdk.TextBlock("hello")); err != nil {
		t.Fatal(err)
	}
	if code := r.close(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	agent := byName(rcv.Spans(), "invoke_agent")
	if len(agent) != 1 {
		t.Fatalf("invoke_agent spans: %+v", agent)
	}
	checkAttrs(t, agent[0], map[string]any{"lathe.stop_reason": "done"})
}

// TestACPApprovalRules: the [approval] rules of the user's config allow
// calls without asking the editor, as they do for lathe -p; what they do
// not cover is asked.
func TestACPApprovalRules(t *testing.T) {
	srv := ollamatest.New(t)
	env := acpEnv(t, srv)
	var config string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			config = filepath.Join(v, "lathe")
		}
	}
	if err := os.MkdirAll(config, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "config.toml"), []byte("[approval]\ntools = [\"write_file\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client := &acpClient{}
	r := startACP(t, srv, env, client)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write_file", `{"path":"a.txt","content":"a\n"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("edit_file", `{"path":"a.txt","old_string":"a","new_string":"b"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := r.prompt(s.SessionId, sdk.TextBlock("write, then edit")); err != nil {
		t.Fatal(err)
	}
	if len(client.asked) != 1 || !strings.HasPrefix(*client.asked[0].ToolCall.Title, "edit_file") {
		t.Errorf("asked about %d calls; want the edit alone", len(client.asked))
	}
}
