package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// acpRun is `lathe acp` run in-process, with the SDK's client side
// speaking to it as an editor does.
type acpRun struct {
	t      *testing.T
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
func acpEnv(t *testing.T, srv *ollamatest.Server) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"OLLAMA_HOST=" + srv.URL()}
}

// startACP starts lathe acp with args in env, and the client.
func startACP(t *testing.T, srv *ollamatest.Server, env []string, client *acpClient, args ...string) *acpRun {
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
	reads  []string
	writes []string
}

var _ sdk.Client = (*acpClient)(nil)

func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
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
