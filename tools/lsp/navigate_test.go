package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"lathe/tools"
	"lathe/tools/lsp/lsptest"
)

// navTools are m's navigation tools by name, over the workspace dir.
func navTools(t *testing.T, m *Manager, dir string) map[string]tools.Tool {
	t.Helper()
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	out := map[string]tools.Tool{}
	for _, tool := range m.NavigationTools(ws) {
		out[tool.Name()] = tool
	}
	return out
}

// call runs tool with args, which must be valid.
func call(t *testing.T, tool tools.Tool, args string) tools.Result {
	t.Helper()
	c, err := tool.Prepare(json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool.Name(), args, err)
	}
	res, err := c.Run(t.Context(), tools.Caller{})
	if err != nil {
		t.Fatalf("%s %s: %v", tool.Name(), args, err)
	}
	return res
}

// The fake server's workspace: "def NAME" defines a name.
var navFiles = map[string]string{
	"lib.fake":     "def greet\n  says hello\ndef part\n",
	"app.fake":     "start\n  greet(part)\n😀 greet again\n",
	"sub/two.fake": "def part\n",
}

// TestNavigation: each tool answers for the name at a place (the column
// counted in characters, one on no name moved to the nearest), for a
// name on a line, and for a symbol looked up in the workspace (the
// others of its name listed); what is not there is said so.
func TestNavigation(t *testing.T) {
	m, dir, _, started := fakeManager(t, "", time.Minute, navFiles)
	nav := navTools(t, m, dir)
	if !nav["definition"].(tools.Optional).Available(t.Context()) || starts(t, started) != 0 {
		t.Fatal("not offered for a workspace of .fake files, or offering it started the server")
	}
	for _, c := range []struct {
		tool, args, want, summary string
	}{
		{"definition", `{"path": "app.fake", "line": 2, "column": 4}`, "definition of greet (app.fake:2:4):\nlib.fake:1:5: def greet", "1 location"},
		{"definition", `{"path": "app.fake", "line": 2, "column": 1}`,
			"definition of greet (app.fake:2:3):\nlib.fake:1:5: def greet\n(column 1 is not on a name: the nearest name, greet, is used.)", "1 location"},
		{"definition", `{"path": "app.fake", "line": 3, "column": 3}`, "definition of greet (app.fake:3:3):\nlib.fake:1:5: def greet", "1 location"},
		{"definition", `{"path": "app.fake", "line": 2, "symbol": "part"}`,
			"definition of part (app.fake:2:9):\nlib.fake:3:5: def part\nsub/two.fake:1:5: def part", "2 locations"},
		{"definition", `{"symbol": "greet"}`, "definition of greet:\nlib.fake:1:5: def greet (function)", "1 location"},
		{"definition", `{"symbol": "part"}`, "2 definitions of part:\nlib.fake:3:5: def part (function)\nsub/two.fake:1:5: def part (function)", "2 locations"},
		{"definition", `{"symbol": "part", "path": "sub/two.fake"}`, "definition of part:\nsub/two.fake:1:5: def part (function)", "1 location"},
		{"definition", `{"path": "app.fake", "line": 1, "column": 2}`, "no definition of start found (app.fake:1:2)", "none"},
		{"references", `{"path": "lib.fake", "line": 1, "column": 5}`,
			"3 references to greet (lib.fake:1:5):\napp.fake:2:3: greet(part)\napp.fake:3:3: 😀 greet again\nlib.fake:1:5: def greet", "3 references"},
		{"references", `{"symbol": "part"}`,
			"3 references to part (lib.fake:3:5):\napp.fake:2:9: greet(part)\nlib.fake:3:5: def part\nsub/two.fake:1:5: def part\n" +
				"(2 symbols are named part: the first is used; the others: sub/two.fake:1:5. Give path and line to choose.)", "3 references"},
		{"hover", `{"path": "app.fake", "line": 3, "symbol": "greet"}`, "greet (app.fake:3:3):\ndef greet\n\ndefined on line 1", "3 lines"},
		{"hover", `{"path": "app.fake", "line": 1, "column": 1}`, "nothing known of start (app.fake:1:1)", "none"},
	} {
		res := call(t, nav[c.tool], c.args)
		if res.Content != c.want || res.Summary != c.summary || res.IsError {
			t.Errorf("%s %s:\n%s (%s)\nwant\n%s (%s)", c.tool, c.args, res.Content, res.Summary, c.want, c.summary)
		}
	}
	for args, want := range map[string]string{
		`{"symbol": "gree"}`: "error: no symbol named gree in the workspace; names that come close: greet",
		`{"symbol": "zzz"}`:  "error: no symbol named zzz in the workspace",
	} {
		if res := call(t, nav["hover"], args); res.Content != want || !res.IsError || res.Summary != "not found" {
			t.Errorf("hover %s: %q (%s), want %q", args, res.Content, res.Summary, want)
		}
	}
	if n := starts(t, started); n != 1 {
		t.Errorf("the server started %d times, want once", n)
	}
}

// TestNavigationArguments: arguments that name no place are refused
// before anything runs, and a place not in the file is said so.
func TestNavigationArguments(t *testing.T) {
	m, dir, _, started := fakeManager(t, "", time.Minute, navFiles)
	def := navTools(t, m, dir)["definition"]
	for _, args := range []string{`{}`, `{"path": "app.fake"}`, `{"path": "app.fake", "line": 2}`, `{"line": 2, "symbol": "x"}`,
		`{"path": "app.fake", "column": 2, "symbol": "x"}`, `{"path": "app.fake", "line": -1, "column": 2}`,
		`{"path": "../x.fake", "line": 1, "column": 1}`} {
		if _, err := def.Prepare(json.RawMessage(args)); err == nil {
			t.Errorf("%s was taken", args)
		}
	}
	for args, want := range map[string]string{
		`{"path": "app.fake", "line": 9, "column": 1}`:                      "error: app.fake has 3 lines; line 9 is not one of them",
		`{"path": "app.fake", "line": 1, "column": 40}`:                     "error: line 1 of app.fake has 5 characters; column 40 is not on it",
		`{"path": "app.fake", "line": 1, "symbol": "greet"}`:                `error: line 1 of app.fake does not hold greet: "start"`,
		`{"path": "notes.txt", "line": 1, "column": 1}`:                     "error: no language server serves notes.txt",
		`{"path": "gone.fake", "line": 1, "column": 1}`:                     "error: gone.fake is not a file a language server reads",
		`{"path": "notes.txt", "symbol": "greet"}`:                          "error: no language server serves notes.txt",
		`{"path": "app.fake", "line": 2, "column": 3, "x": 1}`:              "definition of greet (app.fake:2:3):",
		`{"path": "app.fake", "line": "2", "column": "3"}`:                  "definition of greet (app.fake:2:3):",
		`{"path": "app.fake", "line": 2, "symbol": "nothere"}`:              `error: line 2 of app.fake does not hold nothere`,
		`{"path": "app.fake", "line": 2, "column": 3, "symbol": "nothere"}`: "definition of greet (app.fake:2:3):",
	} {
		if res := call(t, def, args); !strings.HasPrefix(res.Content, want) || res.IsError != strings.HasPrefix(want, "error: ") {
			t.Errorf("%s: %q, want %q", args, res.Content, want)
		}
	}
	if n := starts(t, started); n != 1 {
		t.Errorf("the server started %d times", n)
	}
}

// TestNavigationBadServers: a server that answers nothing, fails, serves
// no navigation, or crashes costs a call at most the wait and is said
// so; one that crashes is told once, started again once, then left.
func TestNavigationBadServers(t *testing.T) {
	big := strings.Repeat("x", 200<<10) + "\ngreet\n" // more than a pipe holds
	for _, c := range []struct {
		mode, file, want string
	}{
		{lsptest.ModeMute, "start\n  greet\n", "error: the language server fake did not answer in time"},
		{lsptest.ModeHang, big, "error: the language server fake did not answer in time"},
		{lsptest.ModeNoInit, "start\n  greet\n", "error: the language server fake did not answer in time"},
		{lsptest.ModeFail, "start\n  greet\n", "error: the language server fake answered: internal failure"},
		{lsptest.ModeBare, "start\n  greet\n", "error: the language server fake does not answer textDocument/definition"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			m, dir, _, _ := fakeManager(t, c.mode, time.Minute, map[string]string{"app.fake": c.file})
			if strings.HasSuffix(c.want, "in time") {
				m.opts.ToolWait = 500 * time.Millisecond // what is waited for never comes
			} else {
				m.opts.ToolWait = time.Minute // what is waited for comes, however slow the machine
			}
			nav := navTools(t, m, dir)
			for _, args := range []string{`{"path": "app.fake", "line": 2, "symbol": "greet"}`, `{"symbol": "greet"}`} {
				res := call(t, nav["definition"], args)
				want := c.want
				if c.mode == lsptest.ModeBare && !strings.Contains(args, "line") {
					want = "error: the language server fake does not answer workspace/symbol"
				}
				if res.Content != want || !res.IsError {
					t.Errorf("%s: %q, want %q", args, res.Content, want)
				}
			}
		})
	}
}

// TestNavigationCrash: a server that exits on a request is told once,
// started again for the next call, and after its second crash left
// alone; each call says it failed.
func TestNavigationCrash(t *testing.T) {
	m, dir, n, started := fakeManager(t, lsptest.ModeBreak, time.Minute, map[string]string{"app.fake": "greet\n"})
	ref := navTools(t, m, dir)["references"]
	args := `{"path": "app.fake", "line": 1, "column": 1}`
	if res := call(t, ref, args); !res.IsError || res.Content != "error: the language server fake stopped before it answered" {
		t.Fatalf("the crash: %q", res.Content)
	}
	if s := <-n.ch; !strings.Contains(s, "stopped (") || !strings.Contains(s, "starts again") {
		t.Fatalf("told %q", s)
	}
	if res := call(t, ref, args); !res.IsError {
		t.Fatalf("the second crash: %q", res.Content)
	}
	if s := <-n.ch; !strings.Contains(s, "goes on without it") {
		t.Fatalf("told %q", s)
	}
	if res := call(t, ref, args); res.Content != "error: the language server fake does not run" {
		t.Fatalf("after it: %q", res.Content)
	}
	if got := starts(t, started); got != 2 {
		t.Errorf("started %d times, want 2", got)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.list) != 2 {
		t.Errorf("told %q, want each crash once", n.list)
	}
}

// TestNavigationFlood: answers of twenty thousand references, five
// thousand definitions, twenty thousand symbols and a megabyte of hover
// cost a bounded result.
func TestNavigationFlood(t *testing.T) {
	m, dir, _, _ := fakeManager(t, lsptest.ModeFlood, time.Minute, map[string]string{"app.fake": "def greet\ngreet\n"})
	m.opts.ToolWait = 5 * time.Minute // the bound tested is the result's, not the wait's (-race is slow)
	nav := navTools(t, m, dir)
	for _, c := range []struct{ tool, args, more string }{
		{"references", `{"path": "app.fake", "line": 2, "column": 1}`, "(19952 more not shown)"},
		{"definition", `{"path": "app.fake", "line": 2, "column": 1}`, "(4951 more not shown)"},
		{"definition", `{"symbol": "greet"}`, ""},
		{"hover", `{"path": "app.fake", "line": 2, "column": 1}`, "more bytes not shown)"},
	} {
		res := call(t, nav[c.tool], c.args)
		if len(res.Content) > navLines*(maxLineText+100)+500 || !strings.HasSuffix(res.Content, c.more) ||
			strings.Count(res.Content, "\n") > navLines+2 {
			t.Errorf("%s %s: %d bytes, %d lines, ending %q", c.tool, c.args, len(res.Content), strings.Count(res.Content, "\n"),
				res.Content[max(0, len(res.Content)-80):])
		}
	}
}

// TestNavigationOutside: places outside the workspace are said to be,
// and their files not read.
func TestNavigationOutside(t *testing.T) {
	m, dir, _, _ := fakeManager(t, lsptest.ModeOutside, time.Minute, map[string]string{"app.fake": "def greet\ngreet\n"})
	nav := navTools(t, m, dir)
	res := call(t, nav["definition"], `{"path": "app.fake", "line": 2, "column": 1}`)
	want := "definition of greet (app.fake:2:1):\napp.fake:1:5: def greet\n/etc/passwd:1:1 (outside the workspace)\n" +
		dir[:strings.LastIndexByte(dir, '/')] + "/elsewhere.fake:2:1 (outside the workspace)\n" +
		"jdt://contents/x.class:4:2 (outside the workspace)"
	if res.Content != want {
		t.Errorf("definition:\n%s\nwant\n%s", res.Content, want)
	}
	res = call(t, nav["references"], `{"path": "app.fake", "line": 2, "column": 1}`)
	if !strings.HasSuffix(res.Content, "\n/etc/passwd:1:1 (outside the workspace)") || strings.Contains(res.Content, "root") {
		t.Errorf("references:\n%s", res.Content)
	}
}

// TestNavigationTooManyOpen: a file the server cannot open, as it holds
// as many as lathe lets it, is said so, not taken for a server that did
// not answer.
func TestNavigationTooManyOpen(t *testing.T) {
	m, dir, _, _ := fakeManager(t, "", time.Minute, map[string]string{"app.fake": "greet\n", "b.fake": "greet\n"})
	def := navTools(t, m, dir)["definition"]
	if res := call(t, def, `{"path": "app.fake", "line": 1, "column": 1}`); res.IsError {
		t.Fatal(res.Content)
	}
	c := m.client(m.entryFor("app.fake"))
	for i := range maxOpen - 1 {
		if _, ok := c.sync(t.Context(), fmt.Sprintf("gen%d.fake", i), "x\n"); !ok {
			t.Fatalf("opening the %dth file failed", i+2)
		}
	}
	res := call(t, def, `{"path": "b.fake", "line": 1, "column": 1}`)
	if want := "error: the language server fake has 1000 files open already"; res.Content != want || !res.IsError {
		t.Errorf("%q, want %q", res.Content, want)
	}
	if res := call(t, def, `{"path": "app.fake", "line": 1, "column": 1}`); res.IsError {
		t.Errorf("a file open already: %q", res.Content)
	}
}
