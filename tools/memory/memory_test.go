package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
	"lathe/tools/codeindex"
)

var memDay = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func newWorkspace(t *testing.T) *tools.Workspace {
	t.Helper()
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// runTool runs a call of tool in session "aaaa000000000002".
func runTool(t *testing.T, ctx context.Context, tool tools.Tool, args string) (tools.Result, string) {
	t.Helper()
	call, err := tool.Prepare(json.RawMessage(args))
	if err != nil {
		return tools.Result{}, err.Error()
	}
	res, err := call.Run(ctx, tools.Caller{Session: "aaaa000000000002"})
	if err != nil {
		t.Fatal(err)
	}
	return res, ""
}

func findTool(t *testing.T, all []tools.Tool, name string) tools.Tool {
	t.Helper()
	for _, tool := range all {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestRecall(t *testing.T) {
	db := sqlitetest.Open(t)
	ctx := t.Context()
	for _, s := range []struct{ id, dir, content string }{
		{"aaaa000000000001", "/p", "The tests run with make check."},
		{"aaaa000000000002", "/p", "make check failed on the linter"},
		{"aaaa000000000003", "/other", "make check elsewhere"},
	} {
		if err := db.CreateSession(ctx, session.Record{ID: s.id, Title: "about " + s.id[12:], Dir: s.dir, Created: memDay}); err != nil {
			t.Fatal(err)
		}
		m := session.Message{Message: provider.Message{Role: "assistant", Content: s.content}, Created: memDay}
		if err := db.SaveMessage(ctx, s.id, m); err != nil {
			t.Fatal(err)
		}
	}
	recall := findTool(t, Tools(nil, Options{Dir: "/p", Sessions: db}), "recall")
	if recall.Kind() != tools.KindRead {
		t.Errorf("recall is of kind %v", recall.Kind())
	}
	res, _ := runTool(t, ctx, recall, `{"query":"make check"}`)
	want := "1 message of earlier sessions matches:\n" +
		`- session aaaa000000000001 (` + memDay.Local().Format("2006-01-02") + `, "about 0001"), assistant: The tests run with make check.`
	if res.Content != want || res.IsError || res.Summary != "1 message" {
		t.Errorf("result %q (%s), want\n%s", res.Content, res.Summary, want)
	}
	res, _ = runTool(t, ctx, recall, `{"query":"kubernetes"}`)
	if !strings.Contains(res.Content, `Nothing in the earlier sessions of this project matches "kubernetes"`) {
		t.Errorf("nothing found: %q", res.Content)
	}
	if res, _ = runTool(t, ctx, recall, `{"query":"--- ***"}`); !res.IsError {
		t.Errorf("a query without words: %q", res.Content)
	}
	if _, msg := runTool(t, ctx, recall, `{"query":"  "}`); !strings.Contains(msg, `"query" is empty`) {
		t.Errorf("an empty query: %q", msg)
	}
}

func TestRemember(t *testing.T) {
	db := sqlitetest.Open(t)
	ctx := t.Context()
	remember := findTool(t, Tools(nil, Options{Dir: "/p", Facts: db, Now: func() time.Time { return memDay }}), "remember")
	if remember.Kind() != tools.KindMemory || !remember.Kind().NeedsApproval() || remember.Kind().Concurrent() {
		t.Errorf("remember is of kind %v", remember.Kind())
	}
	call, err := remember.Prepare(json.RawMessage(`{"fact":"  tests run with\n make check "}`))
	if err != nil {
		t.Fatal(err)
	}
	if call.Subject() != "tests run with make check" {
		t.Errorf("subject %q: what the user approves is the fact as kept", call.Subject())
	}
	facts, _ := db.Facts(ctx, "/p")
	if len(facts) != 0 {
		t.Fatal("a fact is kept before the call runs (and is approved)")
	}
	res, err := call.Run(ctx, tools.Caller{})
	if err != nil || res.IsError || !strings.Contains(res.Content, "next sessions") {
		t.Errorf("result %+v, %v", res, err)
	}
	facts, _ = db.Facts(ctx, "/p")
	if len(facts) != 1 || facts[0].Text != "tests run with make check" || !facts[0].Created.Equal(memDay) {
		t.Errorf("facts %+v", facts)
	}
	for _, args := range []string{`{"fact":""}`, `{"fact":"` + strings.Repeat("x", 400) + `"}`} {
		if _, msg := runTool(t, ctx, remember, args); msg == "" {
			t.Errorf("%.30s accepted", args)
		}
	}
}

// stubCode is a code index answering with fixed results.
type stubCode struct {
	res []codeindex.Result
	err error
	got codeindex.Query
}

func (s *stubCode) Search(_ context.Context, q codeindex.Query) ([]codeindex.Result, error) {
	s.got = q
	return s.res, s.err
}

func TestSearchCode(t *testing.T) {
	ws := newWorkspace(t)
	code := &stubCode{res: []codeindex.Result{{Chunk: codeindex.Chunk{Path: "lex/lex.go", Start: 14, End: 30,
		Symbol: "(*Lexer).Next", Text: "\n// Next returns the next token.\nfunc (l *Lexer) Next() string {\n\ta\n\tb\n\tc\n}\n"}},
		{Chunk: codeindex.Chunk{Path: "README.md", Start: 1, End: 2, Text: "# lathe\n" + strings.Repeat("y", 300)}, Changed: true}}}
	status := ""
	tool := findTool(t, Tools(ws, Options{Dir: ws.Dir(), Code: code, CodeStatus: func() string { return status }}), "search_code")
	res, _ := runTool(t, t.Context(), tool, `{"query":"next token"}`)
	want := "2 chunks match (best first; read_file a range for more):\n" +
		"lex/lex.go:14-30 (*Lexer).Next\n    // Next returns the next token.\n    func (l *Lexer) Next() string {\n    \ta\n    \tb\n    …\n" +
		"README.md:1-2 (changed since it was indexed: the lines may have moved)\n    # lathe\n    " + strings.Repeat("y", 120) + "…"
	if res.Content != want || res.Summary != "2 chunks" {
		t.Errorf("result\n%s\nwant\n%s", res.Content, want)
	}
	if code.got.Dir != ws.Dir() || code.got.Text != "next token" || code.got.Root == nil || code.got.Limit != 8 {
		t.Errorf("query %+v", code.got)
	}
	status, code.err = "indexing: 3 of 40 files", codeindex.ErrNoIndex
	res, _ = runTool(t, t.Context(), tool, `{"query":"next token"}`)
	if !res.IsError || !strings.Contains(res.Content, "no code index yet (indexing: 3 of 40 files)") {
		t.Errorf("no index: %+v", res)
	}
}

// TestAvailable: an optional tool that says it cannot answer is left out
// of the registry; the others stay, in order.
func TestAvailable(t *testing.T) {
	ws := newWorkspace(t)
	db := sqlitetest.Open(t)
	available := false
	mem := Tools(ws, Options{Dir: ws.Dir(), Sessions: db, Facts: db, Code: &stubCode{},
		CodeAvailable: func(context.Context) bool { return available }})
	r := tools.NewRegistry(mem...)
	if got := strings.Join(r.Available(t.Context()).Names(), " "); got != "recall remember" {
		t.Errorf("without an embedding model: %s", got)
	}
	available = true
	if got := r.Available(t.Context()); got != r {
		t.Errorf("with one: %s, want the registry itself", strings.Join(got.Names(), " "))
	}
}
