package orchestrator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools"
)

// TestEditThatCannotSucceedIsNotAsked: with previews (the UI), an edit
// that cannot succeed as things stand (a file over edit_file's limit, an
// old_string found nowhere) fails at once, with what Run would say, and
// the user is not asked to approve it blind (F2).
func TestEditThatCannotSucceedIsNotAsked(t *testing.T) {
	dir := t.TempDir()
	big, err := os.Create(filepath.Join(dir, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(22_700_000); err != nil {
		t.Fatal(err)
	}
	big.Close()
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	rec := &recorder{}
	e := newEnv(t, nil, withTools(tools.Default(ws, tools.Options{}).All()...), withApprover(rec), func(o *Options) { o.Previews = true })
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			call("edit_file", `{"path":"huge.txt","old_string":"a","new_string":"b"}`),
			call("edit_file", `{"path":"small.txt","old_string":"omega","new_string":"b"}`),
			call("edit_file", `{"path":"small.txt","old_string":"alpha","new_string":"beta"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := e.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(rec.asked) != 1 || rec.asked[0].Subject != "small.txt" || !strings.Contains(rec.asked[0].Preview, "+beta") {
		t.Errorf("asked about %+v; want the edit that can succeed alone", rec.asked)
	}
	var results []string
	for _, ev := range e.events {
		if f, ok := ev.(ToolFinished); ok {
			results = append(results, string(f.Outcome)+": "+f.Result.Content)
		}
	}
	if len(results) != 3 || !strings.Contains(results[0], "error: error: huge.txt is 21.6 MiB: edit_file edits files up to 10 MiB") ||
		!strings.HasPrefix(results[1], "error: error: old_string was not found") || !strings.HasPrefix(results[2], "ok: ") {
		t.Errorf("results:\n%s", strings.Join(results, "\n"))
	}
}
