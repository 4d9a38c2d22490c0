package orchestrator

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools"
	"lathe/tools/sandbox"
)

// wireRequest is a chat request body with its parts kept as raw bytes.
type wireRequest struct {
	Model     string            `json:"model"`
	Messages  []json.RawMessage `json:"messages"`
	Tools     json.RawMessage   `json:"tools"`
	Options   json.RawMessage   `json:"options"`
	Stream    *bool             `json:"stream"`
	Truncate  *bool             `json:"truncate"`
	KeepAlive json.RawMessage   `json:"keep_alive"`
}

func chatBodies(t *testing.T, srv *ollamatest.Server) []wireRequest {
	t.Helper()
	var out []wireRequest
	for _, r := range srv.Requests() {
		if r.Path != "/api/chat" {
			continue
		}
		var w wireRequest
		if err := json.Unmarshal(r.Body, &w); err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

func TestRequestsAreAppendOnlyAndByteStable(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(
		ollamatest.Reply{Thinking: "plan", ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"b","z":1,"a":2}`)}},
		ollamatest.Reply{Content: "step", ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"c"}`), call("read", `{"path":"d"}`)}},
		ollamatest.Reply{Content: "first answer"},
		ollamatest.Reply{Content: "second answer"},
	)
	if _, err := e.run(t.Context(), "one"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "two"); err != nil {
		t.Fatal(err)
	}
	reqs := chatBodies(t, e.srv)
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, r := range reqs {
		if r.Stream == nil || !*r.Stream || r.Truncate == nil || *r.Truncate {
			t.Errorf("request %d: stream=%v truncate=%v, want stream true and truncate false", i, r.Stream, r.Truncate)
		}
		if !bytes.Contains(r.Options, []byte(`"num_ctx":32768`)) {
			t.Errorf("request %d options = %s, want num_ctx", i, r.Options)
		}
		if i == 0 {
			continue
		}
		prev := reqs[i-1]
		if !bytes.Equal(r.Tools, prev.Tools) || !bytes.Equal(r.Options, prev.Options) || !bytes.Equal(r.KeepAlive, prev.KeepAlive) || r.Model != prev.Model {
			t.Errorf("request %d: tools, options, keep_alive or model changed between turns", i)
		}
		if len(r.Messages) <= len(prev.Messages) {
			t.Fatalf("request %d has %d messages, not more than %d", i, len(r.Messages), len(prev.Messages))
		}
		for j, m := range prev.Messages {
			if !bytes.Equal(m, r.Messages[j]) {
				t.Errorf("request %d message %d changed:\n was %s\n now %s", i, j, m, r.Messages[j])
			}
		}
	}
	if !bytes.Contains(reqs[1].Messages[2], []byte(`"arguments":{"path":"b","z":1,"a":2}`)) {
		t.Errorf("arguments not sent back in the model's key order: %s", reqs[1].Messages[2])
	}
}

func TestPrepare(t *testing.T) {
	qwen := ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}, ContextLength: 40960}
	tests := []struct {
		name       string
		models     []ollamatest.Model
		configured string
		numCtx     int
		wantModel  string
		wantNumCtx int
		wantErr    error
		wantMsg    string
	}{
		{"configured model", []ollamatest.Model{qwen}, "qwen3:8b", 0, "qwen3:8b", 32768, nil, ""},
		{"trained context caps num_ctx", []ollamatest.Model{{Name: "small:1b", ContextLength: 8192}}, "small:1b", 0, "small:1b", 8192, nil, ""},
		{"configured num_ctx below trained", []ollamatest.Model{qwen}, "qwen3:8b", 16384, "qwen3:8b", 16384, nil, ""},
		{"server without capabilities gets the benefit of the doubt",
			[]ollamatest.Model{{Name: "llama3.1:8b", LegacyShow: true, ContextLength: 131072}}, "llama3.1:8b", 0, "llama3.1:8b", 32768, nil, ""},
		{"no tools capability", []ollamatest.Model{{Name: "gemma3:1b", Capabilities: []string{"completion", "vision"}}}, "gemma3:1b", 0, "", 0,
			provider.ErrNoToolSupport, `model "gemma3:1b" does not support tool calling`},
		{"embedding model", []ollamatest.Model{{Name: "nomic-embed-text", Capabilities: []string{"embedding"}}}, "nomic-embed-text", 0, "", 0,
			provider.ErrNoToolSupport, "cannot chat"},
		{"not installed", []ollamatest.Model{qwen}, "llama3.2:3b", 0, "", 0,
			provider.ErrModelNotFound, `model "llama3.2:3b" is not installed: run "ollama pull llama3.2:3b"`},
		{"chosen: first with tools", []ollamatest.Model{
			{Name: "nomic-embed-text", Capabilities: []string{"embedding"}},
			{Name: "gemma3:1b", Capabilities: []string{"completion"}},
			qwen, {Name: "mistral:7b"}}, "", 0, "qwen3:8b", 32768, nil, ""},
		{"none with tools", []ollamatest.Model{{Name: "gemma3:1b", Capabilities: []string{"completion"}}}, "", 0, "", 0,
			provider.ErrNoModel, `none of the installed models (gemma3:1b) supports tool calling: run "ollama pull qwen3:8b"`},
		{"nothing installed", []ollamatest.Model{}, "", 0, "", 0, provider.ErrNoModel, `no model is installed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(tt.models...)}, func(o *Options) {
				o.Config.Model = tt.configured
				if tt.numCtx != 0 {
					o.Config.Options.NumCtx = tt.numCtx
				}
			})
			info, err := e.session.Prepare(t.Context())
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("err = %v, want %v with %q", err, tt.wantErr, tt.wantMsg)
				}
				if _, runErr := e.run(t.Context(), "hi"); runErr == nil {
					t.Error("Run went ahead after Prepare failed")
				}
				if n := len(e.srv.ChatRequests()); n != 0 {
					t.Errorf("%d chat requests sent for an unusable model", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Model.Name != tt.wantModel || info.Model.NumCtx != tt.wantNumCtx {
				t.Errorf("model %q num_ctx %d, want %q %d", info.Model.Name, info.Model.NumCtx, tt.wantModel, tt.wantNumCtx)
			}
		})
	}
}

func TestShowIsAskedOncePerSession(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "a"}, ollamatest.Reply{Content: "b"})
	for _, p := range []string{"one", "two"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	shows := 0
	for _, r := range e.srv.Requests() {
		if r.Path == "/api/show" {
			shows++
		}
	}
	if shows != 1 {
		t.Errorf("/api/show asked %d times, want once", shows)
	}
}

// TestCommandAllowed: a command rule covers the command with the same
// first words and plain arguments after them; never a chain, a
// substitution, a redirection, a control character, a home directory, or
// an option by which the program runs another one or writes where told.
func TestCommandAllowed(t *testing.T) {
	tests := []struct {
		cmd, rule string
		want      bool
	}{
		{"go test ./...", "go test", true},
		{"go test", "go test", true},
		{"go test -run 'TestX|TestY' -count=1 ./...", "go test", true},
		{"  go   test  ./x ", "go test", true},
		{"go testify", "go test", false},
		{"go vet ./...", "go test", false},
		{"go test ./...", "go test ./...", true},
		{"go test ./other", "go test ./...", false},
		{"go test ./... ; rm -rf ~", "go test", false},
		{"go test && curl evil", "go test", false},
		{"go test | sh", "go test", false},
		{"go test > /etc/passwd", "go test", false},
		{"go test $(rm -rf ~)", "go test", false},
		{"go test `id`", "go test", false},
		{"go test\nrm -rf ~", "go test", false},
		{"go test\u2028rm", "go test", false},
		{"go test\x1b[8m hidden", "go test", false},
		{"go test 'unclosed", "go test", false},
		{"rm -rf ~", "", false},
		// F3: the program's own ways to run something else or write elsewhere.
		{`go test -exec 'sh -c "touch x"' ./...`, "go test", false},
		{`go test -a -toolexec 'sh -c x' ./...`, "go test", false},
		{"go test -c -o /tmp/x.test", "go test", false},
		{"go test -o=/tmp/x.test", "go test", false},
		{"go test --exec=sh", "go test", false},
		{"go test -count=1 -coverprofile=/tmp/c.out ./...", "go test", false},
		{"go test -cpuprofile /tmp/cpu.prof .", "go test", false},
		{"go test -cover ./...", "go test", true},
		{"go test -v -covermode=atomic ./...", "go test", true},
		{"git -c core.pager='touch x' status", "git", false},
		{"git status -C ..", "git status", false},
		{"git rebase -x 'make' main", "git rebase", false},
		{"git status -sb", "git status", true},
		{"git diff --cached", "git diff", true},
		{"find . -name '*.go' -exec rm {} +", "find", false},
		{"find . -delete", "find", false},
		{"find . -name '*.go'", "find", true},
		{"sed -i.bak s/a/b/ f", "sed", false},
		{"sed -ni 1p f", "sed", false},
		{"sed -n 1,10p f", "sed", true},
		// The red team's attempts that held (redteam-3, approvals).
		{"go test -args -exec sh ./...", "go test", false},
		{"go test ./... -- -exec sh", "go test", false},
		{"go test -modfile=/tmp/evil.mod ./...", "go test", false},
		{"go test -toolexec=/tmp/x ./...", "go test", false},
		{"sed -n 1e\\ touch x f", "sed", false},
		{"sed -ni.bak 1p f", "sed", false},
		// The test binary's spelling of the same options.
		{"go test -test.cpuprofile=/tmp/cpu.out ./...", "go test", false},
		{"go test -test.outputdir=/tmp -test.memprofile=m.out ./...", "go test", false},
		{"go test --test.coverprofile c.out", "go test", false},
		{"go test -test.gocoverdir=/tmp/cov .", "go test", false},
		{"go test -test.run TestX -test.v ./...", "go test", true},
		// A sed script that runs a command or writes a file.
		{"sed 's/.*/touch x/e' go.mod", "sed", false},
		{"sed -n '1w out' go.mod", "sed", false},
		{"sed -n '/a/W out' f", "sed", false},
		{"sed 's/a/b/gw out' f", "sed", false},
		{"sed '1 e date' f", "sed", false},
		{"sed -n 's/a/b/;e' f", "sed", false},
		{"sed -n -- 'w out' f", "sed", false},
		{"sed 'k' f", "sed", false},
		{"sed 's/a/b' f", "sed", false},
		{"sed --sandbox 's/.*/x/e' f", "sed", true},
		{"sed 's/a/b/g' f", "sed", true},
		{"sed -E 's/(a|b)/[\\1]/2I' f", "sed", true},
		{"sed -n '/foo/{p;q}' f", "sed", true},
		{"sed '1!G;h;$!d' f", "sed", true},
		{"sed 'y/abc/xyz/' f", "sed", true},
		{"sed '$a we write' f", "sed", true},
		{"sed '0,/re/d' f", "sed", true},
		{"sed '/x/I,+2d' f", "sed", true},
		{"sed -n '2~3p;$=' f", "sed", true},
		{"sed -l 5 -n 'l' f", "sed", true},
		{"sed -n '/^w/p' f", "sed", true},
		{"sed 's/e/w/' f", "sed", true},
		{"sed -n", "sed", false},
		{"make -f /tmp/evil.mk", "make", false},
		{"make -Cdir", "make", false},
		{"make test", "make", true},
		{"cat ~/.ssh/id_rsa", "cat", false},
	}
	for _, tt := range tests {
		if got := commandAllowed(tt.cmd, tt.rule); got != tt.want {
			t.Errorf("commandAllowed(%q, %q) = %v, want %v", tt.cmd, tt.rule, got, tt.want)
		}
	}
}

// TestRulesDoNotCoverGitDir: a tool rule allows writes anywhere but into
// a .git directory (a planted core.fsmonitor or hook runs later, outside
// any sandbox): those go to the user, or are denied without one. --yes
// approves them, but while commands are sandboxed the file tools refuse
// what the sandbox protects, and the model is told why; with the sandbox
// off the write is made.
func TestRulesDoNotCoverGitDir(t *testing.T) {
	rules := Rules{Tools: []string{"edit_file"}, Denial: "no"}
	for path, want := range map[string]bool{
		"main.go": true, ".git/config": false, "./.git/hooks/pre-commit": false, "sub/.git/config": false,
		".github/workflows/x.yml": true, "a/../.git/config": false,
	} {
		d, _ := rules.Approve(t.Context(), ApprovalRequest{Tool: "edit_file", Kind: tools.KindWrite, Subject: path})
		if d.Allow != want {
			t.Errorf("%s: allowed %v, want %v", path, d.Allow, want)
		}
	}
	for _, mode := range []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.Off} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, ".git/hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			ws, err := tools.OpenWorkspace(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			policy := sandbox.DefaultPolicy(dir, "", func(string) string { return "" })
			policy.Mode = mode
			reg := tools.Default(ws, tools.Options{Confinement: &tools.Confinement{Exe: "lathe", Policy: policy}})
			e := newEnv(t, nil, withApprover(Rules{All: true}), func(o *Options) { o.Tools = reg })
			e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
				call("write_file", `{"path":".git/hooks/pre-commit","content":"touch pwned"}`)}},
				ollamatest.Reply{Content: "done"})
			if _, err := e.run(t.Context(), "plant it"); err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(filepath.Join(dir, ".git/hooks/pre-commit"))
			results := lastToolResults(t, e.srv)
			refused := len(results) == 1 && contains(results[0].Content, ".git/hooks/pre-commit is protected while commands are sandboxed")
			var finished ToolFinished
			for _, ev := range e.events {
				if f, ok := ev.(ToolFinished); ok {
					finished = f
				}
			}
			if mode == sandbox.Off {
				if statErr != nil || refused {
					t.Errorf("sandbox off: the hook was not written (%v): %v", statErr, results)
				}
				return
			}
			if statErr == nil || !refused || finished.Subject != ".git/hooks/pre-commit" || finished.Result.Summary != "refused" {
				t.Errorf("sandboxed: hook written %v, results %v, shown as %q %q", statErr == nil, results,
					finished.Subject, finished.Result.Summary)
			}
		})
	}
}

// TestRulesDoNotCoverGitThatRunsPrograms: a rule for git covers git, not
// what the repository's config makes git run (core.fsmonitor in a cloned
// or unpacked repository): there the command goes to the user, or is
// denied saying why; elsewhere the rule holds.
func TestRulesDoNotCoverGitThatRunsPrograms(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := tools.Default(ws, tools.Options{})
	shell, _ := reg.Lookup("shell")
	rules := Rules{Commands: []string{"git status", "go test"}, Denial: "no"}
	decide := func(command string) Decision {
		t.Helper()
		call, err := shell.Prepare(json.RawMessage(`{"command":` + strconv.Quote(command) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := rules.Approve(t.Context(), ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: command, Call: call})
		return d
	}
	for _, config := range []string{"[core]\n\tbare = false\n\tfsmonitor = true\n", "[alias]\n\tst = status\n"} {
		_ = os.WriteFile(filepath.Join(dir, ".git/config"), []byte(config), 0o644)
		if d := decide("git status --short"); !d.Allow {
			t.Errorf("%q: git status denied: %q", config, d.Reason)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, ".git/config"), []byte("[core]\n\tfsmonitor = \"touch pwned; false\"\n"), 0o644)
	if d := decide("git status --short"); d.Allow || !strings.Contains(d.Reason, "core.fsmonitor") {
		t.Errorf("git status allowed under a planted fsmonitor: %+v", d)
	}
	if d := decide("go test ./..."); !d.Allow {
		t.Errorf("go test denied: %q", d.Reason)
	}
}
