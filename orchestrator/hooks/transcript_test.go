package hooks

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider"
)

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// TestTranscriptsAppendAndRewrite: a growing history is appended, what is
// written staying as it was; a history changed behind the file (undone)
// is written again; a call's arguments that are not JSON are kept as
// text; Close removes the files.
func TestTranscriptsAppendAndRewrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "transcripts")
	clock := time.Unix(1_700_000_000, 0)
	tr := NewTranscripts(dir, func() time.Time { clock = clock.Add(time.Second); return clock })
	msgs := []provider.Message{
		{Role: "user", Content: "fix a"},
		{Role: "assistant", Thinking: "hm", ToolCalls: []provider.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)},
			{Name: "shell", Arguments: json.RawMessage(`{"command": "ls`)}}},
		{Role: "tool", ToolName: "read_file", ToolCallID: "c1", Content: "hello"},
	}
	path := tr.Write("s1", "/w", msgs)
	if path != filepath.Join(dir, "s1.jsonl") {
		t.Fatalf("path %q", path)
	}
	first, _ := os.ReadFile(path)
	lines := readLines(t, path)
	if len(lines) != 3 || lines[0]["type"] != "user" || lines[0]["parentUuid"] != nil || lines[1]["parentUuid"] != lines[0]["uuid"] ||
		lines[0]["cwd"] != "/w" || lines[0]["sessionId"] != "s1" {
		t.Fatalf("lines %v", lines)
	}
	blocks := lines[1]["message"].(map[string]any)["content"].([]any)
	if len(blocks) != 3 || blocks[0].(map[string]any)["thinking"] != "hm" ||
		blocks[1].(map[string]any)["input"].(map[string]any)["path"] != "a" ||
		blocks[2].(map[string]any)["id"] != "call_1" || blocks[2].(map[string]any)["input"].(map[string]any)["arguments"] != `{"command": "ls` {
		t.Errorf("the reply's blocks %v", blocks)
	}
	result := lines[2]["message"].(map[string]any)
	if b := result["content"].([]any)[0].(map[string]any); result["role"] != "user" || b["type"] != "tool_result" || b["tool_use_id"] != "c1" || b["content"] != "hello" {
		t.Errorf("the result %v", result)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}

	msgs = append(msgs, provider.Message{Role: "assistant", Content: "Done."})
	tr.Write("s1", "/w", msgs)
	second, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(second), string(first)) || len(readLines(t, path)) != 4 {
		t.Errorf("not appended:\n%s", second)
	}

	// Undone back to the prompt, then as many messages again: the file is
	// the new history alone.
	msgs = append(msgs[:1:1], provider.Message{Role: "assistant", Content: "Other."}, provider.Message{Role: "user", Content: "more"},
		provider.Message{Role: "assistant", Content: "More."})
	tr.Write("s1", "/w", msgs)
	lines = readLines(t, path)
	if len(lines) != 4 || lines[1]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != "Other." {
		t.Errorf("after the undo %v", lines)
	}
	if tr.Path("s1") != path || tr.Path("s2") != "" {
		t.Errorf("paths %q %q", tr.Path("s1"), tr.Path("s2"))
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("left after Close: %v", err)
	}
}

// TestTranscriptsDoNotFollowLinks: a link where a transcript goes is not
// written through; the hook is told no transcript.
func TestTranscriptsDoNotFollowLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "s1.jsonl")); err != nil {
		t.Fatal(err)
	}
	tr := NewTranscripts(dir, nil)
	if p := tr.Write("s1", "/w", []provider.Message{{Role: "user", Content: "x"}}); p != "" {
		t.Errorf("written through a link: %q", p)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("target %q", b)
	}
}

// TestTranscriptsFromASeq: a history held from a seq on is written as
// the whole history would be, the messages before read only where the
// file lacks them (all of them at first; none when it holds them; those
// let go of since it was written; all again when the history changed
// behind it); without a way to read them, nothing is written.
func TestTranscriptsFromASeq(t *testing.T) {
	var hist []provider.Message
	for i := range 12 {
		hist = append(hist, provider.Message{Role: []string{"user", "assistant"}[i%2], Content: strings.Repeat("x", i)})
	}
	stamp := func() time.Time { return time.Unix(1_700_000_000, 0) }
	want := NewTranscripts(t.TempDir(), stamp)
	got := NewTranscripts(t.TempDir(), stamp)
	var reads []int
	write := func(first, n int) string {
		t.Helper()
		wp := want.Write("s1", "/w", hist[:n])
		gp := got.WriteFrom("s1", "/w", first, hist[first:n], func(from int) ([]provider.Message, error) {
			reads = append(reads, from)
			return hist[from:first], nil
		})
		w, _ := os.ReadFile(wp)
		g, err := os.ReadFile(gp)
		if err != nil || string(g) != string(w) {
			t.Fatalf("held from %d of %d: the file differs (%v):\n%s\nwant\n%s", first, n, err, g, w)
		}
		return gp
	}
	write(4, 6)
	write(4, 8)
	write(7, 9)   // let go of up to 7 after the file held 8: nothing read
	write(10, 11) // let go of up to 10: the last message written and the one after it read
	hist[10].Content = "changed"
	write(10, 12) // changed behind the file: all of it read again
	if want := []int{0, 8, 0}; !slices.Equal(reads, want) {
		t.Errorf("read from %v, want %v", reads, want)
	}
	if p := got.WriteFrom("s2", "/w", 3, hist[3:5], nil); p != "" {
		t.Errorf("written without the messages before seq 3: %q", p)
	}
}
