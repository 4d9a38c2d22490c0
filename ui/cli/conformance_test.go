package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools/mcp/mcptest"
)

// conformanceScenario is one of the official MCP conformance suite's
// client scenarios: the call of the scenario's tool the scripted model
// makes ("" for none); what the server conf's table in the config holds
// besides its url (OAuth's table, for the auth/ scenarios: ${KEY} in it
// is the value KEY of the scenario's context, MCP_CONFORMANCE_CONTEXT,
// which the client has in its environment); and login: lathe mcp login
// conf runs first, as a user does for a server that wants the
// authorization code flow.
type conformanceScenario struct {
	name, call, config string
	login              bool
}

// The config of the auth/ scenarios: lathe's client ID metadata document
// where the server takes one (the suite's own URL), else dynamic
// registration; a client registered beforehand (its secret from the
// context, through a variable); lathe's own client, with a secret or a
// key; cross-app access with the user's ID token.
const (
	confBrowser = `[mcp.servers.conf.oauth]
client_metadata_url = "https://conformance-test.local/client-metadata.json"`
	confRegistered = confBrowser + `
client_id = "${client_id}"
client_secret_env = "CONF_SECRET"`
	confSecret = `[mcp.servers.conf.oauth]
grant = "client_credentials"
client_id = "${client_id}"
client_secret_env = "CONF_SECRET"`
	confKey = `[mcp.servers.conf.oauth]
grant = "client_credentials"
client_id = "${client_id}"
private_key_file = "${private_key_file}"
signing_algorithm = "${signing_algorithm}"`
	confCrossApp = `[mcp.servers.conf.oauth]
grant = "cross_app_access"
client_id = "${client_id}"
client_secret_env = "CONF_SECRET"
idp_issuer = "${idp_issuer}"
idp_token_endpoint = "${idp_token_endpoint}"
idp_client_id = "${idp_client_id}"
id_token_env = "CONF_ID_TOKEN"`
	confTool = `{"name": "conf__test-tool", "arguments": {}}`
)

// conformanceScenarios are the scenarios lathe runs: every client scenario
// of the suite's version.
var conformanceScenarios = []conformanceScenario{
	{name: "initialize"},
	{name: "tools_call", call: `{"name": "conf__add_numbers", "arguments": {"a": 2, "b": 3}}`},
	{name: "elicitation-sep1034-client-defaults", call: `{"name": "conf__test_client_elicitation_defaults", "arguments": {}}`},
	{name: "sse-retry", call: `{"name": "conf__test_reconnection", "arguments": {}}`},
	{name: "auth/metadata-default", call: confTool, config: confBrowser, login: true},
	{name: "auth/metadata-var1", call: confTool, config: confBrowser, login: true},
	{name: "auth/metadata-var2", call: confTool, config: confBrowser, login: true},
	{name: "auth/metadata-var3", call: confTool, config: confBrowser, login: true},
	{name: "auth/basic-cimd", call: confTool, config: confBrowser, login: true},
	{name: "auth/scope-from-www-authenticate", call: confTool, config: confBrowser, login: true},
	{name: "auth/scope-from-scopes-supported", call: confTool, config: confBrowser, login: true},
	{name: "auth/scope-omitted-when-undefined", call: confTool, config: confBrowser, login: true},
	{name: "auth/scope-step-up", call: confTool, config: confBrowser, login: true},
	{name: "auth/scope-retry-limit", call: confTool, config: confBrowser, login: true},
	{name: "auth/token-endpoint-auth-basic", call: confTool, config: confBrowser, login: true},
	{name: "auth/token-endpoint-auth-post", call: confTool, config: confBrowser, login: true},
	{name: "auth/token-endpoint-auth-none", call: confTool, config: confBrowser, login: true},
	{name: "auth/pre-registration", call: confTool, config: confRegistered, login: true},
	{name: "auth/2025-03-26-oauth-metadata-backcompat", call: confTool, config: confBrowser, login: true},
	{name: "auth/2025-03-26-oauth-endpoint-fallback", call: confTool, config: confBrowser, login: true},
	{name: "auth/resource-mismatch", call: confTool, config: confBrowser, login: true},
	{name: "auth/offline-access-scope", call: confTool, config: confBrowser, login: true},
	{name: "auth/offline-access-not-supported", call: confTool, config: confBrowser, login: true},
	{name: "auth/client-credentials-jwt", call: confTool, config: confKey},
	{name: "auth/client-credentials-basic", call: confTool, config: confSecret},
	{name: "auth/cross-app-access-complete-flow", call: confTool, config: confCrossApp},
}

// TestConformance runs the official conformance suite's client scenarios
// (npm @modelcontextprotocol/conformance, installed by scripts/mcp-npm.sh)
// against lathe: the suite serves each scenario and runs lathe-conformance
// URL (conformanceClient), which points lathe's config at the URL, logs in
// where the scenario wants a user's authorization, and runs lathe -p,
// whose model calls the scenario's tool. Every check the suite makes must
// pass, and lathe must run every scenario the suite has; scenarios run in
// parallel.
func TestConformance(t *testing.T) {
	suite := filepath.Join(mcptest.NodePackage(t, "conformance"), "dist", "index.js")
	out, err := exec.Command("node", suite, "list", "--client").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		name, _, _ = strings.Cut(name, " ")
		if ok && !slices.ContainsFunc(conformanceScenarios, func(s conformanceScenario) bool { return s.name == name }) {
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

// runScenario runs one scenario and checks what the suite found. The
// model calls the scenario's tool when a prompt starts (a run may come
// twice: after a login for more scopes), and then says it is done.
func runScenario(t *testing.T, suite string, sc conformanceScenario) {
	var call []ollamatest.ToolCall
	if sc.call != "" {
		var c ollamatest.ToolCall
		if err := json.Unmarshal([]byte(sc.call), &c); err != nil {
			t.Fatal(err)
		}
		call = append(call, c)
	}
	fake := ollamatest.New(t)
	fake.Respond(func(req api.ChatRequest) ollamatest.Reply {
		if len(call) > 0 && req.Messages[len(req.Messages)-1].Role == "user" {
			return ollamatest.Reply{ToolCalls: call}
		}
		return ollamatest.Reply{Content: "done."}
	})
	dir := t.TempDir()
	for _, d := range []string{"home", "xdg", "data", "proj", "results"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	login := ""
	if sc.login {
		login = "1"
	}
	cmd := exec.CommandContext(t.Context(), "node", suite, "client", "--command", "lathe-conformance",
		"--scenario", sc.name, "--timeout", "30000", "-o", filepath.Join(dir, "results"))
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_STATE_HOME="+filepath.Join(dir, "data"),
		"OLLAMA_HOST="+fake.URL(), "LATHE_CONFORMANCE_DIR="+filepath.Join(dir, "proj"),
		"LATHE_CONFORMANCE_CONFIG="+sc.config, "LATHE_CONFORMANCE_LOGIN="+login, "BROWSER=fakebrowser", "NO_COLOR=1")
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
	if len(runs) == 0 { // an auth/ scenario's are in results/auth
		runs, _ = filepath.Glob(filepath.Join(dir, "*", "*", "checks.json"))
	}
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
// LATHE_CONFORMANCE_CONFIG too, expanded from the scenario's context), in
// the directory LATHE_CONFORMANCE_DIR, against the fake Ollama at
// OLLAMA_HOST. With LATHE_CONFORMANCE_LOGIN set, lathe mcp login conf runs
// first, with the $BROWSER that says yes at once, and again when the run
// says to log in again (a server that wants more scopes), followed by
// another run. A form a server asks to fill is accepted with its
// defaults, as the elicitation scenario expects of a client; the server
// is waited for 20 s, a loaded machine's time; stdin is empty.
func conformanceClient() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: lathe-conformance URL")
		os.Exit(2)
	}
	env, err := conformanceSetup(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "lathe-conformance:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	run := func(stderr io.Writer, args ...string) int {
		null, err := os.Open(os.DevNull)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer null.Close()
		return Run(ctx, args, null, os.Stdout, stderr, env)
	}
	prompt := []string{"-p", "run the scenario", "--yes", "--output-format", "stream-json", "-C", os.Getenv("LATHE_CONFORMANCE_DIR")}
	if os.Getenv("LATHE_CONFORMANCE_LOGIN") == "" {
		os.Exit(run(os.Stderr, prompt...))
	}
	login := []string{"mcp", "login", "conf", "-C", os.Getenv("LATHE_CONFORMANCE_DIR")}
	if code := run(os.Stderr, login...); code != 0 {
		os.Exit(code)
	}
	var said bytes.Buffer
	code := run(io.MultiWriter(os.Stderr, &said), prompt...)
	if strings.Contains(said.String(), "run lathe mcp login conf") {
		if code := run(os.Stderr, login...); code != 0 {
			os.Exit(code)
		}
		code = run(os.Stderr, prompt...)
	}
	os.Exit(code)
}

// conformanceSetup writes the user config of a conformance run, with the
// server at url, and returns the environment lathe runs with: the
// scenario's secrets in the variables the config names, its key in a
// file the config names.
func conformanceSetup(url string) ([]string, error) {
	var scenario map[string]any
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		if err := json.Unmarshal([]byte(c), &scenario); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	value := func(k string) string {
		s, _ := scenario[k].(string)
		return s
	}
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "lathe")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		return nil, err
	}
	if pem := value("private_key_pem"); pem != "" {
		key := filepath.Join(cfgDir, "key.pem")
		if err := os.WriteFile(key, []byte(pem), 0o600); err != nil {
			return nil, err
		}
		scenario["private_key_file"] = key
	}
	table := os.Expand(os.Getenv("LATHE_CONFORMANCE_CONFIG"), value)
	config := fmt.Sprintf("[mcp]\nelicitation = \"accept\"\nstart_timeout = 20\n\n[mcp.servers.conf]\nurl = %q\ntimeout = \"20s\"\n%s\n",
		url, table)
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(config), 0o644); err != nil {
		return nil, err
	}
	return append(os.Environ(), "CONF_SECRET="+value("client_secret"), "CONF_ID_TOKEN="+value("idp_id_token")), nil
}
