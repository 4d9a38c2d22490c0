package lsp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"lathe/tools"
)

// TestDiagnosticsTool: the tool is offered where the workspace's top holds
// a language a server serves, and not elsewhere; it lists what is wrong in
// a file now, and in the files the server knows of.
func TestDiagnosticsTool(t *testing.T) {
	m, dir, _, started := fakeManager(t, "", time.Minute, map[string]string{"main.fake": "ok\n", "src/a.fake": "ok\nERROR one\n"})
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tool := m.Tool(ws)
	if !tool.(tools.Optional).Available(t.Context()) {
		t.Fatal("not offered for a workspace of .fake files")
	}
	if n := starts(t, started); n != 0 {
		t.Fatalf("offering the tool started %d servers", n)
	}
	run := func(args string) tools.Result {
		call, err := tool.Prepare(json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		res, err := call.Run(t.Context(), tools.Caller{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(`{"path": "src/a.fake"}`); res.Content != "src/a.fake:2:1: bad: ERROR one" || res.Summary != "1 problem" {
		t.Errorf("file: %q (%s)", res.Content, res.Summary)
	}
	if err := os.WriteFile(dir+"/src/a.fake", []byte("ERROR x\nERROR y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := run(`{"path": "src/a.fake"}`); !strings.Contains(res.Content, "ERROR y") {
		t.Errorf("the file as it is now: %q", res.Content)
	}
	if res := run(`{}`); !strings.Contains(res.Content, "src/a.fake:1:1: bad: ERROR x") {
		t.Errorf("workspace: %q", res.Content)
	}
	if _, err := tool.Prepare(json.RawMessage(`{"path": "../x.fake"}`)); err == nil {
		t.Error("a path outside the workspace was taken")
	}
	other, _, _, _ := fakeManager(t, "", time.Minute, map[string]string{"main.txt": ""})
	if other.Tool(ws).(tools.Optional).Available(context.Background()) {
		t.Error("offered for a workspace without .fake files")
	}
	// Only the top is looked at: the offer is made for the first request,
	// which walks nothing.
	deep, _, _, _ := fakeManager(t, "", time.Minute, map[string]string{"main.txt": "", "src/a/b.fake": ""})
	if deep.Tool(ws).(tools.Optional).Available(context.Background()) {
		t.Error("offered for a workspace with .fake files only below its top")
	}
}
