package sqlite

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

func call(t testing.TB, id string, index int, name, js string) provider.ToolCall {
	t.Helper()
	if !json.Valid([]byte(js)) {
		t.Fatalf("arguments %s are not JSON", js)
	}
	return provider.ToolCall{ID: id, Index: index, Name: name, Arguments: json.RawMessage(js)}
}

func messageCases(t testing.TB) []struct {
	name string
	m    session.Message
} {
	png := []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xfe, 0xff}
	return []struct {
		name string
		m    session.Message
	}{
		{"user", session.Message{Message: provider.Message{Role: "user", Content: "fix the bug in main.go"}}},
		{"user with images", session.Message{Message: provider.Message{Role: "user", Content: "what is this?",
			Images: []provider.Image{{Name: "shot.png", Data: png, Width: 3, Height: 2}, {Data: bytes.Repeat([]byte{0, 0xff}, 3000)}}}}},
		{"empty content", session.Message{Message: provider.Message{Role: "assistant"}}},
		{"unicode and markup", session.Message{Message: provider.Message{Role: "user",
			Content: "héllo 世界 🚀 <script>a && b</script> \"quoted\" \\ \t tab\r\n"}}},
		{"NUL and invalid UTF-8", session.Message{Message: provider.Message{Role: "tool",
			Content: "binary\x00file\xff\xfe end", ToolName: "read_file", ToolCallID: "call_9"}}},
		{"assistant with thinking and calls", session.Message{Message: provider.Message{
			Role: "assistant", Content: "Let me look.", Thinking: "The user wants <b> & </b>; read first.",
			ToolCalls: []provider.ToolCall{
				call(t, "call_1", 0, "read_file", `{"path":"main.go","offset":10,"limit":200}`),
				call(t, "call_2", 1, "bash", `{"z_command":"go test ./... && echo <ok>","timeout":30.5,"env":{"b":1,"a":[1,2,{"y":null,"x":false}]}}`),
				call(t, "", 2, "grep", `{"pattern":"ключ","glob":"**/*.go"}`),
				call(t, "call_4", 3, "list", `{}`), // no arguments at all
				call(t, "call_5", 4, "edit", `{"zeta":"last letter first","count":3,"alpha":["x",1.5,true,null]}`),
			}}}},
		{"assistant with counts", session.Message{Message: provider.Message{Role: "assistant", Content: "Done."},
			Counts: &session.Counts{Prompt: 31744, Completion: 1}}},
		{"assistant counted nothing", session.Message{Message: provider.Message{Role: "assistant", Content: "?"},
			Counts: &session.Counts{}}},
		{"assistant cut", session.Message{Message: provider.Message{Role: "assistant", Content: "Let me th"}, Cut: true}},
		{"tool result with meta", session.Message{
			Message: provider.Message{Role: "tool", Content: "package main\n\nfunc main() {}\n", ToolName: "read_file", ToolCallID: "call_1"},
			Tool:    &session.ToolMeta{Subject: "main.go", Outcome: "ok", Summary: "3 lines", Duration: 1234567 * time.Nanosecond}}},
		{"write result with its diff", session.Message{
			Message: provider.Message{Role: "tool", Content: "wrote a.go", ToolName: "edit_file", ToolCallID: "call_3"},
			Tool: &session.ToolMeta{Subject: "a.go", Outcome: "ok", Summary: "1 line changed", Duration: time.Millisecond,
				Diff: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old\n+new\n"}}},
		{"tool result with empty meta", session.Message{
			Message: provider.Message{Role: "tool", Content: "", ToolName: "bash"},
			Tool:    &session.ToolMeta{}}},
		{"large tool result", session.Message{Message: provider.Message{Role: "tool",
			Content: strings.Repeat("line of output\n", 20000), ToolName: "bash", ToolCallID: "call_2"}}},
	}
}

func TestMessageRoundTrip(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	cases := messageCases(t)
	for i, c := range cases {
		c.m.Seq, c.m.Created = i, day.Add(time.Duration(i)*time.Second)
		if err := db.SaveMessage(t.Context(), "s1", c.m); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	saved, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Messages) != len(cases) {
		t.Fatalf("loaded %d messages, want %d", len(saved.Messages), len(cases))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := saved.Messages[i]
			if got.Seq != i || !got.Created.Equal(day.Add(time.Duration(i)*time.Second)) {
				t.Errorf("seq %d created %v, want %d %v", got.Seq, got.Created, i, day.Add(time.Duration(i)*time.Second))
			}
			if want, have := mustJSON(t, c.m.Message), mustJSON(t, got.Message); want != have {
				t.Errorf("message JSON differs:\nsaved  %s\nloaded %s", want, have)
			}
			if got.Message.Content != c.m.Message.Content || got.Message.Thinking != c.m.Message.Thinking {
				t.Errorf("text differs: %q, want %q", got.Message.Content, c.m.Message.Content)
			}
			if (got.Tool == nil) != (c.m.Tool == nil) || got.Tool != nil && *got.Tool != *c.m.Tool {
				t.Errorf("tool meta %+v, want %+v", got.Tool, c.m.Tool)
			}
			if (got.Counts == nil) != (c.m.Counts == nil) || got.Counts != nil && *got.Counts != *c.m.Counts {
				t.Errorf("counts %+v, want %+v", got.Counts, c.m.Counts)
			}
			if got.Cut != c.m.Cut {
				t.Errorf("cut %v, want %v", got.Cut, c.m.Cut)
			}
		})
	}
}

// TestArgumentOrder pins the order of arguments down explicitly: a store
// that sorted keys would still produce valid JSON.
func TestArgumentOrder(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	m := session.Message{Message: provider.Message{Role: "assistant", ToolCalls: []provider.ToolCall{
		call(t, "c", 0, "edit", `{"path":"a.go","old":"x","new":"y","all":false}`)}}}
	if err := db.SaveMessage(t.Context(), "s1", m); err != nil {
		t.Fatal(err)
	}
	saved, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	got := string(saved.Messages[0].Message.ToolCalls[0].Arguments)
	if want := `{"path":"a.go","old":"x","new":"y","all":false}`; got != want {
		t.Errorf("arguments %s, want %s", got, want)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSaveMessageReplacesAndLeavesGaps(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	for _, m := range []session.Message{
		{Seq: 0, Message: provider.Message{Role: "user", Content: "first"}},
		{Seq: 3, Message: provider.Message{Role: "tool", Content: "result of the second call"}},
		{Seq: 1, Message: provider.Message{Role: "assistant", Content: "draft"}},
		{Seq: 1, Message: provider.Message{Role: "assistant", Content: "final"}},
	} {
		if err := db.SaveMessage(t.Context(), "s1", m); err != nil {
			t.Fatal(err)
		}
	}
	saved, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range saved.Messages {
		got = append(got, mustJSON(t, []any{m.Seq, m.Message.Content}))
	}
	want := []string{`[0,"first"]`, `[1,"final"]`, `[3,"result of the second call"]`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("messages %v, want %v", got, want)
	}
}

func TestSaveMessageUpdatesSession(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	steps := []struct {
		created, wantUpdated time.Time
	}{
		{day.Add(time.Minute), day.Add(time.Minute)},
		{day.Add(time.Hour), day.Add(time.Hour)},
		{day.Add(time.Second), day.Add(time.Hour)}, // a late result written after: never backwards
	}
	for i, s := range steps {
		m := session.Message{Seq: i, Message: provider.Message{Role: "user"}, Created: s.created}
		if err := db.SaveMessage(t.Context(), "s1", m); err != nil {
			t.Fatal(err)
		}
		saved, err := db.Load(t.Context(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		if !saved.Updated.Equal(s.wantUpdated) || !saved.Created.Equal(day) {
			t.Errorf("step %d: created %v updated %v, want %v %v", i, saved.Created, saved.Updated, day, s.wantUpdated)
		}
	}
}

func TestSaveMessageUnknownSession(t *testing.T) {
	db := openTest(t)
	err := db.SaveMessage(t.Context(), "nope", session.Message{Seq: 12, Message: provider.Message{Role: "user"}})
	if !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("err = %v, want ErrSessionNotFound", err)
	}
	if want := "save message 12 of session nope"; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %q, want it to say %q", err, want)
	}
}

func TestZeroTimesMeanNow(t *testing.T) {
	db := openTest(t)
	before := time.Now()
	createSession(t, db, "s1", "/w", time.Time{})
	if err := db.SaveMessage(t.Context(), "s1", session.Message{Message: provider.Message{Role: "user"}}); err != nil {
		t.Fatal(err)
	}
	saved, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	for name, got := range map[string]time.Time{"created": saved.Created, "updated": saved.Updated, "message": saved.Messages[0].Created} {
		if got.Before(before) || got.After(after) {
			t.Errorf("%s = %v, want between %v and %v", name, got, before, after)
		}
	}
}

// TestToolCallsColumnShape: the tool_calls column holds calls in the shape
// of Ollama's wire form, which databases written before lathe's own types
// hold too: such a row reads back, and a saved call is written that way.
func TestToolCallsColumnShape(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	old := `[{"id":"call_a","function":{"index":1,"name":"read_file","arguments":{"path":"b.go","limit":5}}},` +
		`{"function":{"index":0,"name":"list_dir","arguments":{}}}]`
	_, err := db.sql.ExecContext(t.Context(), `INSERT INTO messages (session_id, seq, role, content, thinking, tool_calls,
		tool_name, tool_call_id, created_at) VALUES ('s1', 0, 'assistant', '', '', ?, '', '', 0)`, old)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	calls := saved.Messages[0].Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "call_a" || calls[0].Index != 1 || calls[0].Name != "read_file" ||
		string(calls[0].Arguments) != `{"path":"b.go","limit":5}` || calls[1].Name != "list_dir" || calls[1].ID != "" {
		t.Fatalf("calls read back as %+v", calls)
	}
	if err := db.SaveMessage(t.Context(), "s1", session.Message{Seq: 1, Message: saved.Messages[0].Message}); err != nil {
		t.Fatal(err)
	}
	var name, path string
	err = db.sql.QueryRowContext(t.Context(), `SELECT json_extract(tool_calls, '$[0].function.name'),
		json_extract(tool_calls, '$[0].function.arguments.path') FROM messages WHERE seq = 1`).Scan(&name, &path)
	if err != nil || name != "read_file" || path != "b.go" {
		t.Errorf("saved shape: name %q path %q (%v)", name, path, err)
	}
}
