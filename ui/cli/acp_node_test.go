package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// acpNodeModules is the node_modules that holds the official TypeScript
// ACP SDK, which scripts/acp-npm.sh installs: the one
// LATHE_ACP_NODE_MODULES names, else the one in the cache .ci/run installs
// into. Without node the test is skipped; with node but without the SDK,
// it fails, saying how to install it.
func acpNodeModules(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the end-to-end test with the TypeScript ACP SDK needs it (and npm, to install the SDK)")
	}
	dir := os.Getenv("LATHE_ACP_NODE_MODULES")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			cache = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		dir = filepath.Join(cache, "lathe", "acp-npm", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(dir, "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the TypeScript ACP SDK is not installed in %s: run scripts/acp-npm.sh DIR "+
			"and set LATHE_ACP_NODE_MODULES to the directory it prints (.ci/run does both)", dir)
	}
	return dir
}

// TestACPTypeScriptClient: an editor built with the official TypeScript
// SDK (testdata/acp/client.mjs) starts lathe acp as a process, and a
// prompt runs through it: the write is asked for and allowed, the updates
// come in order, the turn ends end_turn, and lathe exits 0 when the
// editor closes its stdin.
func TestACPTypeScriptClient(t *testing.T) {
	modules := acpNodeModules(t)
	srv := ollamatest.New(t)
	srv.Script(
		ollamatest.Reply{Thinking: "a file", ToolCalls: []ollamatest.ToolCall{call("write_file", `{"path":"hello.txt","content":"hello\n"}`)}},
		ollamatest.Reply{Content: "Wrote it."},
	)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "lathe")); err != nil { // testscript.Main runs main under this name
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, _ := filepath.Abs(filepath.Join("testdata", "acp", "client.mjs"))
	cmd := exec.Command("node", script, filepath.Join(bin, "lathe"), dir)
	cmd.Env = append(acpEnv(t, srv), "PATH="+os.Getenv("PATH"), "NODE_PATH="+modules)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\nstderr:\n%s", err, stderr.String())
	}
	var got struct {
		Init struct {
			ProtocolVersion   int `json:"protocolVersion"`
			AgentCapabilities struct {
				LoadSession bool `json:"loadSession"`
			} `json:"agentCapabilities"`
			AgentInfo struct{ Name string } `json:"agentInfo"`
		} `json:"init"`
		Modes struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
		StopReason string   `json:"stopReason"`
		Updates    []string `json:"updates"`
		Exit       int      `json:"exit"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client printed %q: %v", out, err)
	}
	if got.Init.ProtocolVersion != 1 || !got.Init.AgentCapabilities.LoadSession || got.Init.AgentInfo.Name != "lathe" ||
		got.Modes.CurrentModeID != "build" || got.StopReason != "end_turn" || got.Exit != 0 {
		t.Errorf("client saw %+v", got)
	}
	want := []string{
		"agent_thought_chunk a file",
		"tool_call edit pending write_file hello.txt",
		"request_permission allow,allow_session,deny",
		"tool_call_update completed",
		"agent_message_chunk Wrote it.",
	}
	if strings.Join(got.Updates, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates:\n%s\nwant:\n%s", strings.Join(got.Updates, "\n"), strings.Join(want, "\n"))
	}
	if data, err := os.ReadFile(filepath.Join(dir, "hello.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("hello.txt: %q, %v", data, err)
	}
}
