package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools/mcp/mcptest"
)

// The tests against third-party MCP servers (npm's, which
// scripts/mcp-npm.sh installs): lathe -p against the fake Ollama, each
// server started as its users start it.

// interopRun is one lathe -p run: the user config, the fake model's
// replies, and what came out.
type interopRun struct {
	t       *testing.T
	dir     string // home, config and the project (proj)
	fake    *ollamatest.Server
	results map[string]string // each tool's result, by name
	stderr  string
}

// newInterop sets up a run's directories and fake model (script, as
// ollamatest.LoadScript reads it); config is the user's config.toml, in
// which @PROJ@ is the project's directory (its mcp.start_timeout a loaded
// machine's: node is slow to start there).
func newInterop(t *testing.T, config, script string) *interopRun {
	t.Helper()
	r := &interopRun{t: t, dir: t.TempDir(), results: map[string]string{}}
	for _, d := range []string{"home", "xdg/lathe", "data", "proj"} {
		if err := os.MkdirAll(filepath.Join(r.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config = strings.ReplaceAll(config, "@PROJ@", r.proj())
	if err := os.WriteFile(filepath.Join(r.dir, "xdg/lathe/config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	replies, err := ollamatest.LoadScript(strings.NewReader(strings.ReplaceAll(script, "@PROJ@", r.proj())))
	if err != nil {
		t.Fatal(err)
	}
	r.fake = ollamatest.New(t)
	r.fake.Script(replies...)
	return r
}

func (r *interopRun) proj() string { return filepath.Join(r.dir, "proj") }

// run runs lathe -p PROMPT --yes with stream-json output, and keeps each
// tool's result.
func (r *interopRun) run(prompt string) {
	r.t.Helper()
	cmd := exec.CommandContext(r.t.Context(), "lathe", "-p", prompt, "--yes", "--output-format", "stream-json", "-C", r.proj())
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(r.dir, "home"), "XDG_CONFIG_HOME="+filepath.Join(r.dir, "xdg"),
		"XDG_DATA_HOME="+filepath.Join(r.dir, "data"), "XDG_STATE_HOME="+filepath.Join(r.dir, "data"),
		"OLLAMA_HOST="+r.fake.URL(), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r.stderr = stderr.String()
	if err != nil {
		r.t.Fatalf("lathe -p: %v\n%s", err, r.stderr)
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		var ev struct{ Type, Name, Content string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "tool_result" {
			r.results[ev.Name] = ev.Content
		}
	}
}

// result is the result of the call of tool, which must have run.
func (r *interopRun) result(tool string) string {
	r.t.Helper()
	res, ok := r.results[tool]
	if !ok {
		r.t.Fatalf("%s did not run; stderr:\n%s", tool, r.stderr)
	}
	return res
}

// everythingHTTP starts server-everything over streamable HTTP and returns
// its URL, once it listens.
func everythingHTTP(t *testing.T, dir string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "dist", "index.js"), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "listening on port") {
			go func() { // the rest of what it says is not read: drained
				for lines.Scan() {
				}
			}()
			return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		}
	}
	t.Fatalf("server-everything did not start over HTTP: %v", lines.Err())
	return ""
}

// everythingScript has the model call server-everything's tools that use
// roots, sampling and elicitation; the second reply answers the sampling
// request, the third ends the run.
const everythingScript = `[
  {"tool_calls": [
    {"name": "ev__get-roots-list", "arguments": {}},
    {"name": "ev__trigger-sampling-request", "arguments": {"prompt": "name a colour", "maxTokens": 20}},
    {"name": "ev__trigger-elicitation-request", "arguments": {}},
    {"name": "ev__echo", "arguments": {"message": "still here"}}
  ]},
  {"content": "Teal."},
  {"content": "done."}
]`

// TestInteropEverything runs server-everything, the reference server of
// every feature, over stdio and streamable HTTP: its roots are the
// workspace; the model lathe runs answers its sampling request; its form
// is declined by policy (its required field has no default to accept);
// its tool that requires a task is left out, said once.
func TestInteropEverything(t *testing.T) {
	dir := mcptest.NodePackage(t, "server-everything")
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			server := fmt.Sprintf("command = \"node\"\nargs = [%q, \"stdio\"]", filepath.Join(dir, "dist", "index.js"))
			if transport == "http" {
				server = fmt.Sprintf("url = %q", everythingHTTP(t, dir))
			}
			r := newInterop(t, "[mcp]\nsampling = \"allow\"\nelicitation = \"accept\"\nstart_timeout = 20\n\n[mcp.servers.ev]\n"+server+"\n", everythingScript)
			r.run("use the server")
			if got := r.result("ev__get-roots-list"); !strings.Contains(got, "URI: file://"+r.proj()) {
				t.Errorf("roots: %q", got)
			}
			if got := r.result("ev__trigger-sampling-request"); !strings.Contains(got, `"text": "Teal."`) || !strings.Contains(got, `"model": "qwen3:8b"`) {
				t.Errorf("sampling: %q", got)
			}
			if got := r.result("ev__trigger-elicitation-request"); !strings.Contains(got, "User declined") {
				t.Errorf("elicitation: %q", got)
			}
			if got := r.result("ev__echo"); got != "Echo: still here" {
				t.Errorf("echo: %q", got)
			}
			if n := strings.Count(r.stderr, "simulate-research-query left out: it needs MCP tasks"); n != 1 {
				t.Errorf("the task tool told %d times:\n%s", n, r.stderr)
			}
			if !strings.Contains(r.stderr, "MCP server ev asked for input (Please provide inputs for the following fields): declined") {
				t.Errorf("the form's decline not told:\n%s", r.stderr)
			}
			chats := r.fake.ChatRequests()
			if len(chats) != 3 {
				t.Fatalf("%d chat requests, want 3", len(chats))
			}
			for _, tl := range chats[0].Tools {
				if tl.Function.Name == "ev__simulate-research-query" {
					t.Error("the tool that requires a task was offered")
				}
			}
			sample := chats[1]
			if len(sample.Messages) != 2 || sample.Messages[0].Content != "You are a helpful test server." ||
				!strings.Contains(sample.Messages[1].Content, "name a colour") || sample.Options["num_predict"] != float64(20) {
				t.Errorf("the sampling request: %+v %v", sample.Messages, sample.Options)
			}
		})
	}
}

// TestInteropFilesystemRoots runs server-filesystem as editors start it,
// without directories: it serves the workspace, which lathe gives as its
// root. The server asks for the roots once initialized and takes them in
// the background: a call within milliseconds of its start, which only an
// instant fake model makes, may find none yet; so the file is read, and
// the directories listed, a turn later.
func TestInteropFilesystemRoots(t *testing.T) {
	dir := mcptest.NodePackage(t, "server-filesystem")
	r := newInterop(t, fmt.Sprintf("[mcp]\nstart_timeout = 20\n\n[mcp.servers.fs]\ncommand = \"node\"\nargs = [%q]\n", filepath.Join(dir, "dist", "index.js")), `[
  {"tool_calls": [{"name": "list_dir", "arguments": {}}]},
  {"tool_calls": [
    {"name": "fs__list_allowed_directories", "arguments": {}},
    {"name": "fs__read_text_file", "arguments": {"path": "@PROJ@/a.txt"}}
  ]},
  {"content": "done."}
]`)
	if err := os.WriteFile(filepath.Join(r.proj(), "a.txt"), []byte("hello from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.run("read a.txt")
	proj, _ := filepath.EvalSymlinks(r.proj())
	if got := r.result("fs__list_allowed_directories"); !strings.Contains(got, proj) {
		t.Errorf("allowed directories: %q, want %s", got, proj)
	}
	if got := r.result("fs__read_text_file"); !strings.Contains(got, "hello from the workspace") {
		t.Errorf("read: %q", got)
	}
}
