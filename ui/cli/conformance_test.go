package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools/mcp/mcptest"
)

// conformanceScenario is one of the official MCP conformance suite's
// client scenarios: the call of the scenario's tool the scripted model
// makes ("" for none), and what the server conf's table in the config
// holds besides its url (OAuth's settings, for the auth/ scenarios: the
// suite gives those a context, MCP_CONFORMANCE_CONTEXT, which the client
// has in its environment).
type conformanceScenario struct {
	name, call, config string
}

// conformanceScenarios are the scenarios lathe runs: every one of the
// suite's version but OAuth's (auth/...), which come as rows once lathe
// speaks OAuth.
var conformanceScenarios = []conformanceScenario{
	{name: "initialize"},
	{name: "tools_call", call: `{"name": "conf__add_numbers", "arguments": {"a": 2, "b": 3}}`},
	{name: "elicitation-sep1034-client-defaults", call: `{"name": "conf__test_client_elicitation_defaults", "arguments": {}}`},
	{name: "sse-retry", call: `{"name": "conf__test_reconnection", "arguments": {}}`},
}

// TestConformance runs the official conformance suite's client scenarios
// (npm @modelcontextprotocol/conformance, installed by scripts/mcp-npm.sh)
// against lathe -p: the suite serves each scenario and runs
// lathe-conformance URL (conformanceClient), which points lathe's config
// at the URL; the scripted model calls the scenario's tool. Every check
// the suite makes must pass; scenarios run in parallel.
func TestConformance(t *testing.T) {
	suite := filepath.Join(mcptest.NodePackage(t, "conformance"), "dist", "index.js")
	out, err := exec.Command("node", suite, "list", "--client").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		name, _, _ = strings.Cut(name, " ")
		if ok && !strings.HasPrefix(name, "auth/") &&
			!slices.ContainsFunc(conformanceScenarios, func(s conformanceScenario) bool { return s.name == name }) {
			t.Errorf("the suite has a client scenario lathe does not run: %s", name)
		}
	}
	for _, sc := range conformanceScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, suite, sc)
		})
	}
}

// runScenario runs one scenario and checks what the suite found.
func runScenario(t *testing.T, suite string, sc conformanceScenario) {
	script := `[{"content": "done."}]`
	if sc.call != "" {
		script = fmt.Sprintf(`[{"tool_calls": [%s]}, {"content": "done."}]`, sc.call)
	}
	replies, err := ollamatest.LoadScript(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	fake := ollamatest.New(t)
	fake.Script(replies...)
	dir := t.TempDir()
	for _, d := range []string{"home", "xdg", "data", "proj", "results"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), "node", suite, "client", "--command", "lathe-conformance",
		"--scenario", sc.name, "--timeout", "30000", "-o", filepath.Join(dir, "results"))
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_STATE_HOME="+filepath.Join(dir, "data"),
		"OLLAMA_HOST="+fake.URL(), "LATHE_CONFORMANCE_DIR="+filepath.Join(dir, "proj"),
		"LATHE_CONFORMANCE_CONFIG="+sc.config, "NO_COLOR=1")
	log, runErr := cmd.CombinedOutput()
	checks, client := scenarioResults(t, filepath.Join(dir, "results"))
	if len(checks) == 0 {
		t.Fatalf("the suite reported no check (%v):\n%s", runErr, log)
	}
	failed := false
	for _, c := range checks {
		switch c.Status {
		case "FAILURE":
			t.Errorf("%s: %s %s", c.ID, c.Description, c.ErrorMessage)
			failed = true
		case "WARNING":
			t.Logf("warning: %s: %s", c.ID, c.ErrorMessage)
		}
	}
	if runErr != nil && !failed {
		t.Errorf("the suite failed: %v\n%s", runErr, log)
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("lathe's output:\n%s", client)
	}
}

// suiteCheck is one of the suite's checks, as checks.json holds it.
type suiteCheck struct {
	ID           string `json:"id"`
	Description  string `json:"description"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// scenarioResults reads the checks the suite wrote, and what the client
// printed.
func scenarioResults(t *testing.T, dir string) ([]suiteCheck, string) {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(runs) != 1 {
		return nil, ""
	}
	data, err := os.ReadFile(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []suiteCheck
	if err := json.Unmarshal(data, &checks); err != nil {
		t.Fatalf("checks.json: %v", err)
	}
	stdout, _ := os.ReadFile(filepath.Join(filepath.Dir(runs[0]), "stdout.txt"))
	stderr, _ := os.ReadFile(filepath.Join(filepath.Dir(runs[0]), "stderr.txt"))
	return checks, string(stdout) + string(stderr)
}

// conformanceClient is lathe-conformance URL, the command the suite runs:
// lathe -p with one HTTP MCP server, conf, at URL (its table holding
// LATHE_CONFORMANCE_CONFIG too), in the directory LATHE_CONFORMANCE_DIR,
// against the fake Ollama at OLLAMA_HOST. A form a server asks to fill is
// accepted with its defaults, as the elicitation scenario expects of a
// client; the server is waited for 20 s, a loaded machine's time; stdin
// is empty.
func conformanceClient() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: lathe-conformance URL")
		os.Exit(2)
	}
	cfg := fmt.Sprintf("[mcp]\nelicitation = \"accept\"\nstart_timeout = 20\n\n[mcp.servers.conf]\nurl = %q\ntimeout = \"20s\"\n%s\n",
		os.Args[1], os.Getenv("LATHE_CONFORMANCE_CONFIG"))
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "lathe")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	args := []string{"-p", "run the scenario", "--yes", "--output-format", "stream-json", "-C", os.Getenv("LATHE_CONFORMANCE_DIR")}
	os.Exit(Run(context.Background(), args, null, os.Stdout, os.Stderr, os.Environ()))
}
