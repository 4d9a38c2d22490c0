package sqlite

import (
	"slices"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/prompts"
)

// TestPrompts: the prompts of a directory's sessions come newest first,
// each once at the time it was last sent, without lathe's notes, the
// other messages or other directories' prompts, at most limit of them.
func TestPrompts(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "old", "/w", day)
	createSession(t, db, "new", "/w", day.Add(time.Hour))
	createSession(t, db, "other", "/elsewhere", day)
	at := 0
	save := func(id, role, content string) {
		t.Helper()
		at++
		m := session.Message{Seq: at, Message: provider.Message{Role: role, Content: content}, Created: day.Add(time.Duration(at) * time.Minute)}
		if err := db.SaveMessage(t.Context(), id, m); err != nil {
			t.Fatal(err)
		}
	}
	save("old", "user", "fix the lexer")
	save("old", "assistant", "Done.")
	save("old", "user", "run the tests")
	save("old", "user", prompts.NotePrefix+"The user approved the plan")
	save("other", "user", "not here")
	save("new", "user", "fix the lexer") // again, later
	save("new", "user", "")
	save("new", "tool", "tool output")
	save("new", "user", "line one\nline two")

	got, err := db.Prompts(t.Context(), "/w", 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"line one\nline two", "fix the lexer", "run the tests"}; !slices.Equal(got, want) {
		t.Errorf("prompts %q, want %q", got, want)
	}
	if got, err := db.Prompts(t.Context(), "/w", 2); err != nil || len(got) != 2 || got[1] != "fix the lexer" {
		t.Errorf("at most 2: %q, %v", got, err)
	}
	if got, err := db.Prompts(t.Context(), "/nowhere", 10); err != nil || len(got) != 0 {
		t.Errorf("a directory without sessions: %q, %v", got, err)
	}
}
