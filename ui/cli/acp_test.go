package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	pngpkg "image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/orchestrator/engine"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

// acpRun is `lathe acp` run in-process, with the SDK's client side
// speaking to it as an editor does.
type acpRun struct {
	t      testing.TB
	srv    *ollamatest.Server
	dir    string // the session's cwd
	env    []string
	conn   *sdk.ClientSideConnection
	client *acpClient
	stdin  io.WriteCloser
	code   chan int
	stderr *strings.Builder
}

// acpEnv is the environment of a run against srv, with its own home.
func acpEnv(t testing.TB, srv *ollamatest.Server) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"OLLAMA_HOST=" + srv.URL()}
}

// startACP starts lathe acp with args in env, and the client.
func startACP(t testing.TB, srv *ollamatest.Server, env []string, client *acpClient, args ...string) *acpRun {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &acpRun{t: t, srv: srv, dir: t.TempDir(), env: env, client: client, stdin: inW, code: make(chan int, 1),
		stderr: &strings.Builder{}}
	if client.files == nil {
		client.files = map[string]string{}
	}
	go func() {
		code := Run(context.Background(), append([]string{"acp"}, args...), inR, outW, r.stderr, env)
		outW.Close()
		inR.Close()
		r.code <- code
	}()
	r.conn = sdk.NewClientSideConnection(client, inW, outR)
	r.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() { r.close() })
	return r
}

// close closes lathe's stdin, as an editor that quits does, and returns
// its exit code.
func (r *acpRun) close() int {
	r.stdin.Close()
	code := <-r.code
	r.code <- code
	return code
}

// initialize initializes with the client's capabilities.
func (r *acpRun) initialize(caps sdk.ClientCapabilities) sdk.InitializeResponse {
	r.t.Helper()
	resp, err := r.conn.Initialize(r.t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: caps})
	if err != nil {
		r.t.Fatalf("initialize: %v (stderr %q)", err, r.stderr.String())
	}
	return resp
}

// newSession opens a session in r.dir.
func (r *acpRun) newSession(servers ...sdk.McpServer) sdk.NewSessionResponse {
	r.t.Helper()
	if servers == nil {
		servers = []sdk.McpServer{}
	}
	resp, err := r.conn.NewSession(r.t.Context(), sdk.NewSessionRequest{Cwd: r.dir, McpServers: servers})
	if err != nil {
		r.t.Fatalf("session/new: %v", err)
	}
	return resp
}

// prompt sends text and returns how the turn ended.
func (r *acpRun) prompt(id sdk.SessionId, blocks ...sdk.ContentBlock) (sdk.StopReason, error) {
	resp, err := r.conn.Prompt(r.t.Context(), sdk.PromptRequest{SessionId: id, Prompt: blocks})
	return resp.StopReason, err
}

// acpClient is the editor: it records the updates, answers permission
// requests with answer, and keeps files as an editor's buffers.
type acpClient struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	asked   []sdk.RequestPermissionRequest
	// answer chooses an option; nil allows once. It may block until ctx
	// ends (a user who never answers).
	answer func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	files  map[string]string // the editor's buffers, by absolute path
	// onChunk, when set, is called as each agent_message_chunk arrives.
	onChunk func()
	reads   []string
	writes  []string
}

var _ sdk.Client = (*acpClient)(nil)

func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	if c.onChunk != nil && n.Update.AgentMessageChunk != nil {
		c.onChunk()
	}
	return nil
}

func (c *acpClient) RequestPermission(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req)
	answer := c.answer
	c.mu.Unlock()
	if answer == nil {
		return choose("allow"), nil
	}
	return answer(ctx, req)
}

// choose is the answer that picks option id.
func choose(id string) sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(id))}
}

func (c *acpClient) ReadTextFile(_ context.Context, req sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, req.Path)
	text, ok := c.files[req.Path]
	if !ok {
		data, err := os.ReadFile(req.Path)
		if err != nil {
			return sdk.ReadTextFileResponse{}, err
		}
		text = string(data)
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

func (c *acpClient) WriteTextFile(_ context.Context, req sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, req.Path)
	c.files[req.Path] = req.Content
	return sdk.WriteTextFileResponse{}, os.WriteFile(req.Path, []byte(req.Content), 0o644)
}

var errNoTerminal = errors.New("no terminal")

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNoTerminal
}
func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNoTerminal
}
func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNoTerminal
}
func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNoTerminal
}
func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNoTerminal
}

// trace is the updates received so far, a line each, text chunks run
// together: what a test compares.
func (c *acpClient) trace() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	add := func(kind, text string) {
		if n := len(out); n > 0 && strings.HasPrefix(out[n-1], kind+" ") {
			out[n-1] += text
			return
		}
		out = append(out, kind+" "+text)
	}
	for _, u := range c.updates {
		switch {
		case u.AgentMessageChunk != nil:
			add("message", u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil:
			add("thought", u.AgentThoughtChunk.Content.Text.Text)
		case u.UserMessageChunk != nil:
			add("user", u.UserMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			tc := u.ToolCall
			line := fmt.Sprintf("tool_call %s %s %q", tc.Status, tc.Kind, tc.Title)
			for _, l := range tc.Locations {
				line += " @" + l.Path
				if l.Line != nil {
					line += fmt.Sprintf(":%d", *l.Line)
				}
			}
			for _, ct := range tc.Content {
				if ct.Diff != nil {
					old := "<new>"
					if ct.Diff.OldText != nil {
						old = *ct.Diff.OldText
					}
					line += fmt.Sprintf(" diff %s %q→%q", ct.Diff.Path, old, ct.Diff.NewText)
				}
			}
			out = append(out, line)
		case u.ToolCallUpdate != nil:
			tu := u.ToolCallUpdate
			status := "-"
			if tu.Status != nil {
				status = string(*tu.Status)
			}
			out = append(out, "tool_call_update "+status)
		case u.Plan != nil:
			var entries []string
			for _, e := range u.Plan.Entries {
				entries = append(entries, string(e.Status)+":"+e.Content)
			}
			out = append(out, "plan "+strings.Join(entries, ", "))
		case u.CurrentModeUpdate != nil:
			out = append(out, "mode "+string(u.CurrentModeUpdate.CurrentModeId))
		case u.AvailableCommandsUpdate != nil:
			var names []string
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				names = append(names, c.Name)
			}
			out = append(out, "commands "+strings.Join(names, " "))
		}
	}
	return out
}

// turn is the trace without the commands update, which comes when it
// comes (after session/new's answer).
func (c *acpClient) turn() []string {
	var out []string
	for _, l := range c.trace() {
		if !strings.HasPrefix(l, "commands ") {
			out = append(out, l)
		}
	}
	return out
}

func call(name, args string) ollamatest.ToolCall {
	return ollamatest.ToolCall{Name: name, Arguments: json.RawMessage(args)}
}

// TestACPToolRun: a prompt runs two turns with calls, streamed in order:
// the thinking, a read with its file and line, an edit with its change as
// a diff, asked for and allowed, each call's end, then the answer; the
// turn ends end_turn, and the file is changed.
func TestACPToolRun(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client)
	os.WriteFile(filepath.Join(r.dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	srv.Script(
		ollamatest.Reply{Thinking: "look first", ToolCalls: []ollamatest.ToolCall{call("read_file", `{"path":"a.txt","offset":2}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("edit_file", `{"path":"a.txt","old_string":"two","new_string":"2"}`)}},
		ollamatest.Reply{Content: "Changed it."},
	)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	if s.Modes == nil || s.Modes.CurrentModeId != "build" || len(s.Modes.AvailableModes) != 3 {
		t.Errorf("modes %+v; want build of ask, plan, build", s.Modes)
	}
	reason, err := r.prompt(s.SessionId, sdk.TextBlock("change two"))
	if err != nil || reason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v, %v; want end_turn", reason, err)
	}
	file := filepath.Join(r.dir, "a.txt")
	want := []string{
		"thought look first",
		fmt.Sprintf(`tool_call pending read "read_file a.txt" @%s:2`, file),
		"tool_call_update completed",
		fmt.Sprintf(`tool_call pending edit "edit_file a.txt" @%s diff %s "one\ntwo\n"→"one\n2\n"`, file, file),
		"tool_call_update completed",
		"message Changed it.",
	}
	if got := client.turn(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(client.asked) != 1 || client.asked[0].ToolCall.ToolCallId == "" {
		t.Errorf("asked %+v; want the edit, once", client.asked)
	}
	if data, _ := os.ReadFile(file); string(data) != "one\n2\n" {
		t.Errorf("a.txt = %q", data)
	}
	if code := r.close(); code != 0 {
		t.Errorf("exit code %d, stderr %q; want 0", code, r.stderr.String())
	}
}

// TestACPPermissions: what the editor answers decides as the TUI's
// dialog does: a denial reaches the model and leaves the file alone;
// "allow for the session" answers the next call of that tool without
// asking; a command offers the sandbox's own options.
func TestACPPermissions(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client)
	file := filepath.Join(r.dir, "a.txt")
	os.WriteFile(file, []byte("one\n"), 0o644)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	client.answer = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return choose("deny"), nil
	}
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write_file", `{"path":"a.txt","content":"denied\n"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if reason, err := r.prompt(s.SessionId, sdk.TextBlock("write")); err != nil || reason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v, %v", reason, err)
	}
	if data, _ := os.ReadFile(file); string(data) != "one\n" {
		t.Errorf("a denied write wrote %q", data)
	}
	reqs := srv.ChatRequests()
	if last := reqs[len(reqs)-1].Messages; !strings.Contains(last[len(last)-1].Content, "the user denied it") {
		t.Errorf("the model was told %q; want the denial's reason", last[len(last)-1].Content)
	}
	if got := client.turn(); !slices.Contains(got, "tool_call_update failed") {
		t.Errorf("updates %q: the denied call did not fail", got)
	}
	var ids []string
	for _, o := range client.asked[0].Options {
		ids = append(ids, string(o.OptionId)+"/"+string(o.Kind))
	}
	if want := "allow/allow_once allow_session/allow_always deny/reject_once"; strings.Join(ids, " ") != want {
		t.Errorf("options %s; want %s", strings.Join(ids, " "), want)
	}

	client.answer = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return choose("allow_session"), nil
	}
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write_file", `{"path":"a.txt","content":"two\n"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write_file", `{"path":"a.txt","content":"three\n"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if reason, err := r.prompt(s.SessionId, sdk.TextBlock("write twice")); err != nil || reason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v, %v", reason, err)
	}
	if data, _ := os.ReadFile(file); string(data) != "three\n" || len(client.asked) != 2 {
		t.Errorf("a.txt %q after %d questions; want three, the second write allowed by the grant", data, len(client.asked))
	}
}

// TestACPCommandOptions: a command that runs in the sandbox offers to
// run it outside, or with the network, this once; with --sandbox off it
// offers neither.
func TestACPCommandOptions(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"sandboxed", nil, "allow allow_session allow_unconfined allow_network deny"},
		{"off", []string{"--sandbox", "off"}, "allow allow_session deny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.args == nil && engine.Probe(func(string) string { return "" }).Reason != "" {
				t.Skip("this system cannot confine commands")
			}
			srv := ollamatest.New(t)
			client := &acpClient{}
			r := startACP(t, srv, acpEnv(t, srv), client, tt.args...)
			r.initialize(sdk.ClientCapabilities{})
			s := r.newSession()
			srv.Script(
				ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("shell", `{"command":"echo hi"}`)}},
				ollamatest.Reply{Content: "ok"},
			)
			if _, err := r.prompt(s.SessionId, sdk.TextBlock("run")); err != nil {
				t.Fatal(err)
			}
			if len(client.asked) != 1 {
				t.Fatalf("asked %d times", len(client.asked))
			}
			var ids []string
			for _, o := range client.asked[0].Options {
				ids = append(ids, string(o.OptionId))
			}
			if got := strings.Join(ids, " "); got != tt.want {
				t.Errorf("options %s; want %s", got, tt.want)
			}
			want := []string{`tool_call pending execute "Run ` + "`echo hi`" + `"`, "tool_call_update completed", "message ok"}
			if got := client.turn(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("updates %q; want %q", got, want)
			}
		})
	}
}

// TestACPCancel: session/cancel stops a run mid-stream, and one waiting
// for an answer the editor never gives; both prompts answer cancelled, and
// the session takes the next prompt.
func TestACPCancel(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()

	srv.Script(ollamatest.Reply{Content: "a long answer", Hang: true, AfterChunks: 2})
	go func() {
		if srv.WaitHanging(t.Context(), 1) == nil {
			r.conn.Cancel(t.Context(), sdk.CancelNotification{SessionId: s.SessionId})
		}
	}()
	if reason, err := r.prompt(s.SessionId, sdk.TextBlock("talk")); err != nil || reason != sdk.StopReasonCancelled {
		t.Fatalf("mid-stream: %v, %v; want cancelled", reason, err)
	}

	asked := make(chan struct{})
	client.answer = func(ctx context.Context, _ sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		close(asked)
		<-ctx.Done() // never answers
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}
	srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write_file", `{"path":"x.txt","content":"x"}`)}})
	go func() {
		<-asked
		r.conn.Cancel(t.Context(), sdk.CancelNotification{SessionId: s.SessionId})
	}()
	if reason, err := r.prompt(s.SessionId, sdk.TextBlock("write")); err != nil || reason != sdk.StopReasonCancelled {
		t.Fatalf("waiting for approval: %v, %v; want cancelled", reason, err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "x.txt")); err == nil {
		t.Errorf("the write ran")
	}
	// A cancel for a session lathe does not know is no error.
	if err := r.conn.Cancel(t.Context(), sdk.CancelNotification{SessionId: "nope"}); err != nil {
		t.Errorf("cancel for no session: %v", err)
	}
	srv.Script(ollamatest.Reply{Content: "back"})
	if reason, err := r.prompt(s.SessionId, sdk.TextBlock("again")); err != nil || reason != sdk.StopReasonEndTurn {
		t.Errorf("after cancels: %v, %v", reason, err)
	}
}

// TestACPBusy: a prompt sent while one runs in the session is refused;
// the first runs on.
func TestACPBusy(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	srv.Script(ollamatest.Reply{Content: "slow", Hang: true, AfterChunks: 1})
	first := make(chan sdk.StopReason, 1)
	go func() {
		reason, _ := r.prompt(s.SessionId, sdk.TextBlock("one"))
		first <- reason
	}()
	if err := srv.WaitHanging(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	_, err := r.prompt(s.SessionId, sdk.TextBlock("two"))
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32600 {
		t.Errorf("second prompt: %v; want an invalid request", err)
	}
	r.conn.Cancel(t.Context(), sdk.CancelNotification{SessionId: s.SessionId})
	if reason := <-first; reason != sdk.StopReasonCancelled {
		t.Errorf("first prompt %v", reason)
	}
}

// TestACPLoad: a session saved by one lathe acp is loaded by the next:
// its conversation is told again (the prompt, the call and how it ended,
// the answer) before session/load answers, and the next prompt goes on
// from it; loading it again while it is open is refused, and leaves it
// open. The editor closing stdin ended the first: exit 0.
func TestACPLoad(t *testing.T) {
	srv := ollamatest.New(t)
	env := acpEnv(t, srv)
	client := &acpClient{}
	r := startACP(t, srv, env, client)
	os.WriteFile(filepath.Join(r.dir, "a.txt"), []byte("one\n"), 0o644)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read_file", `{"path":"a.txt"}`)}},
		ollamatest.Reply{Content: "noted"},
	)
	if _, err := r.prompt(s.SessionId, sdk.TextBlock("remember a.txt")); err != nil {
		t.Fatal(err)
	}
	if code := r.close(); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	client2 := &acpClient{}
	r2 := startACP(t, srv, env, client2)
	r2.dir = r.dir
	init := r2.initialize(sdk.ClientCapabilities{})
	if !init.AgentCapabilities.LoadSession {
		t.Errorf("loadSession not advertised")
	}
	resp, err := r2.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: r.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != "build" {
		t.Errorf("modes %+v", resp.Modes)
	}
	want := []string{"user remember a.txt", `tool_call pending read "read_file"`, "tool_call_update completed", "message noted"}
	if got := client2.turn(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := r2.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: r.dir, McpServers: []sdk.McpServer{}}); err == nil {
		t.Errorf("a session open already was loaded again")
	}
	srv.Script(ollamatest.Reply{Content: "still here"})
	if _, err := r2.prompt(s.SessionId, sdk.TextBlock("and now?")); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	msgs := reqs[len(reqs)-1].Messages
	if len(msgs) < 5 || msgs[1].Content != "remember a.txt" {
		t.Errorf("the loaded session's next request: %d messages, the first prompt %q", len(msgs), msgs[1].Content)
	}
	if _, err := r2.conn.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: "nothing", Cwd: r.dir, McpServers: []sdk.McpServer{}}); err == nil {
		t.Errorf("loading no session succeeded")
	}
}

// TestACPModes: --mode starts new sessions in that mode; session/set_mode
// and /mode switch it, the next request offering the mode's tools; plan
// mode's plan comes as plan entries, and the editor's yes carries it out
// in build mode.
func TestACPModes(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client, "--mode", "plan")
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	if s.Modes.CurrentModeId != "plan" {
		t.Errorf("mode %s; want plan (--mode)", s.Modes.CurrentModeId)
	}
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("propose_plan", `{"summary":"add b","steps":["write b.txt","check it"]}`)}},
		ollamatest.Reply{Content: "on it"},
	)
	if reason, err := r.prompt(s.SessionId, sdk.TextBlock("plan b")); err != nil || reason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v, %v", reason, err)
	}
	got := strings.Join(client.turn(), "\n")
	for _, want := range []string{"plan pending:write b.txt, pending:check it", "mode build"} {
		if !strings.Contains(got, want) {
			t.Errorf("updates lack %q:\n%s", want, got)
		}
	}
	if len(client.asked) != 1 || !strings.Contains(*client.asked[0].ToolCall.Title, "plan") {
		t.Errorf("the plan was not put to the editor: %+v", client.asked)
	}

	if _, err := r.conn.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "ask"}); err != nil {
		t.Fatal(err)
	}
	srv.Script(ollamatest.Reply{Content: "asked"})
	if _, err := r.prompt(s.SessionId, sdk.TextBlock("what is b?")); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	for _, tool := range reqs[len(reqs)-1].Tools {
		if tool.Function.Name == "write_file" {
			t.Errorf("ask mode offered write_file")
		}
	}
	if reason, err := r.prompt(s.SessionId, sdk.TextBlock("/mode build")); err != nil || reason != sdk.StopReasonEndTurn {
		t.Fatalf("/mode: %v, %v", reason, err)
	}
	if trace := client.turn(); trace[len(trace)-2] != "mode build" || !strings.Contains(trace[len(trace)-1], "build mode") {
		t.Errorf("/mode build: %q", trace[len(trace)-2:])
	}
	if _, err := r.conn.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "yolo"}); err == nil {
		t.Errorf("an unknown mode was set")
	}
	if commands := client.trace(); !slices.Contains(commands, "commands compact undo redo mode clear") {
		t.Errorf("no available_commands_update: %q", commands)
	}
}

// TestACPImages: initialize says images are taken when the model lathe
// would use can see them; an image goes to such a model with the prompt,
// and for one that cannot see, the prompt is refused in one line.
func TestACPImages(t *testing.T) {
	var png bytes.Buffer
	if err := pngpkg.Encode(&png, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	img := sdk.ImageBlock(base64.StdEncoding.EncodeToString(png.Bytes()), "image/png")
	vision := ollamatest.Model{Name: "seer:7b", Capabilities: []string{ollamatest.CapCompletion, ollamatest.CapTools, ollamatest.CapVision}}
	blind := ollamatest.Model{Name: "blind:7b", Capabilities: []string{ollamatest.CapCompletion, ollamatest.CapTools}}
	tests := []struct {
		model  string
		image  bool
		reason sdk.StopReason
	}{
		{"seer:7b", true, sdk.StopReasonEndTurn},
		{"blind:7b", false, sdk.StopReasonRefusal},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.WithModels(vision, blind))
			client := &acpClient{}
			r := startACP(t, srv, acpEnv(t, srv), client, "-m", tt.model)
			if got := r.initialize(sdk.ClientCapabilities{}).AgentCapabilities.PromptCapabilities; got.Image != tt.image || !got.EmbeddedContext || got.Audio {
				t.Errorf("prompt capabilities %+v; want image %v, embedded context, no audio", got, tt.image)
			}
			s := r.newSession()
			if tt.image {
				srv.Script(ollamatest.Reply{Content: "a black square"})
			}
			reason, err := r.prompt(s.SessionId, sdk.TextBlock("what is this?"), img)
			if err != nil || reason != tt.reason {
				t.Fatalf("prompt: %v, %v; want %s", reason, err, tt.reason)
			}
			if !tt.image {
				if got := client.turn(); len(got) != 1 || !strings.Contains(got[0], "cannot see images") || strings.Count(strings.TrimSpace(got[0]), "\n") != 0 {
					t.Errorf("refusal %q; want one line saying why", got)
				}
				return
			}
			reqs := srv.ChatRequests()
			if msgs := reqs[0].Messages; len(msgs[len(msgs)-1].Images) != 1 {
				t.Errorf("the image did not go with the prompt")
			}
		})
	}
}

// TestACPEditorFiles: where the editor offers fs/read_text_file and
// fs/write_text_file, the file tools read its buffer (unsaved changes
// the disk does not have) and write through it; /undo still takes the
// write back.
func TestACPEditorFiles(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client)
	file := filepath.Join(r.dir, "a.txt")
	os.WriteFile(file, []byte("on disk\n"), 0o644)
	client.files[file] = "in the buffer\n"
	r.initialize(sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	s := r.newSession()
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read_file", `{"path":"a.txt"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("edit_file", `{"path":"a.txt","old_string":"buffer","new_string":"editor"}`)}},
		ollamatest.Reply{Content: "done"},
	)
	if _, err := r.prompt(s.SessionId, sdk.TextBlock("edit")); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	if msgs := reqs[1].Messages; !strings.Contains(msgs[len(msgs)-1].Content, "in the buffer") {
		t.Errorf("the model read %q; want the editor's buffer", msgs[len(msgs)-1].Content)
	}
	if len(client.reads) == 0 || client.reads[0] != file || len(client.writes) != 1 || client.writes[0] != file {
		t.Errorf("reads %q, writes %q; want %s through the editor", client.reads, client.writes, file)
	}
	if client.files[file] != "in the editor\n" {
		t.Errorf("the editor's buffer %q", client.files[file])
	}
	if _, err := r.prompt(s.SessionId, sdk.TextBlock("/undo")); err != nil {
		t.Fatal(err)
	}
	trace := client.turn()
	if last := trace[len(trace)-1]; !strings.Contains(last, "Undone: 1 file") {
		t.Errorf("/undo said %q", last)
	}
	if data, _ := os.ReadFile(file); string(data) != "on disk\n" {
		t.Errorf("after /undo a.txt is %q; want it as it was on disk before the run", data)
	}
}

// TestACPTerminalOutput: for a client that renders a command's output in
// a terminal of its own (Zed's _meta.terminal_output), a command's call
// names a terminal, and its output (as the model gets it) and exit code
// come for it; the command still runs in lathe (the editor runs nothing:
// no terminal/create). With --yes nothing is asked.
func TestACPTerminalOutput(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client, "--yes")
	r.initialize(sdk.ClientCapabilities{Terminal: true, Meta: map[string]any{"terminal_output": true}})
	s := r.newSession()
	srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("shell", `{"command":"echo from-lathe > made.txt; echo hi"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := r.prompt(s.SessionId, sdk.TextBlock("run")); err != nil {
		t.Fatal(err)
	}
	if len(client.asked) != 0 {
		t.Errorf("--yes asked %d times", len(client.asked))
	}
	if _, err := os.Stat(filepath.Join(r.dir, "made.txt")); err != nil {
		t.Errorf("the command did not run in lathe: %v", err)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	var got []string
	for _, u := range client.updates {
		switch {
		case u.ToolCall != nil:
			info, _ := json.Marshal(u.ToolCall.Meta["terminal_info"])
			got = append(got, fmt.Sprintf("start %d %s", len(u.ToolCall.Content), info))
			if len(u.ToolCall.Content) != 1 || u.ToolCall.Content[0].Terminal == nil {
				t.Errorf("the call's content %+v; want its terminal", u.ToolCall.Content)
			}
		case u.ToolCallUpdate != nil:
			for _, key := range []string{"terminal_output", "terminal_exit"} {
				if v, ok := u.ToolCallUpdate.Meta[key]; ok {
					data, _ := json.Marshal(v)
					got = append(got, key+" "+string(data))
				}
			}
		}
	}
	id := "lathe-1-1-0"
	want := []string{
		fmt.Sprintf(`start 1 {"cwd":%q,"terminal_id":%q}`, r.dir, id),
		fmt.Sprintf(`terminal_output {"data":"exit 0\n[stdout]\nhi\n","terminal_id":%q}`, id),
		fmt.Sprintf(`terminal_exit {"exit_code":0,"signal":null,"terminal_id":%q}`, id),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("terminal updates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestACPPromptContent: a resource link to a file of the workspace is
// named by its path (@path), for the model to read with its tools;
// another URI stays a link; an embedded resource is its text in a fence
// (longer than any fence in it) headed by its path; a binary one is
// refused.
func TestACPPromptContent(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	r := startACP(t, srv, acpEnv(t, srv), client)
	srv.Script(ollamatest.Reply{Content: "Read them."})
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	embedded := sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{
		Uri: "file://" + filepath.Join(r.dir, "main.go"), Text: "package main\n```\n"}})
	reason, err := r.prompt(s.SessionId, sdk.TextBlock("look at"),
		sdk.ResourceLinkBlock("notes.txt", "file://"+filepath.Join(r.dir, "notes.txt")),
		sdk.ResourceLinkBlock("spec", "https://example.com/spec"), embedded)
	if err != nil || reason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v, %v", reason, err)
	}
	msgs := srv.ChatRequests()[0].Messages
	got := msgs[len(msgs)-1].Content
	if want := "look at\n\n@notes.txt\n\n[spec](https://example.com/spec)\n\nmain.go:\n````\npackage main\n```\n````"; !strings.HasSuffix(got, want) {
		t.Errorf("the model was sent:\n%s\nwant it to end:\n%s", got, want)
	}
	if _, err := r.prompt(s.SessionId, sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{
		Uri: "file:///x.bin", Blob: "AAEC"}})); err == nil || !strings.Contains(err.Error(), "text only") {
		t.Errorf("a binary resource: %v; want it refused, as text only", err)
	}
}

// TestACPTurnLimit: a run that reaches limits.max_turns ends with
// max_turn_requests, lathe's line saying which limit.
func TestACPTurnLimit(t *testing.T) {
	srv := ollamatest.New(t)
	client := &acpClient{}
	env := acpEnv(t, srv)
	cfg := filepath.Join(strings.TrimPrefix(env[1], "XDG_CONFIG_HOME="), "lathe")
	os.MkdirAll(cfg, 0o755)
	os.WriteFile(filepath.Join(cfg, "config.toml"), []byte("[limits]\nmax_turns = 2\n"), 0o644)
	r := startACP(t, srv, env, client, "--yes")
	os.WriteFile(filepath.Join(r.dir, "a.txt"), []byte("a\n"), 0o644)
	read := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read_file", `{"path":"a.txt"}`)}}
	srv.Script(read, read)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	reason, err := r.prompt(s.SessionId, sdk.TextBlock("read forever"))
	if err != nil || reason != sdk.StopReasonMaxTurnRequests {
		t.Fatalf("prompt: %v, %v; want max_turn_requests", reason, err)
	}
	turn := client.turn()
	if last := turn[len(turn)-1]; !strings.Contains(last, "lathe:") || !strings.Contains(last, "max_turns") {
		t.Errorf("the last update %q; want lathe's line naming the limit", last)
	}
}
