package sqlite

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
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
	save("old", "user", notePrefix+"The user approved the plan")
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

// TestNoNotePrefix: a database told no note prefix takes every user
// message for the user's, in the prompts listed and in searches.
func TestNoNotePrefix(t *testing.T) {
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "lathe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seedSearch(t, db)
	got, err := db.Prompts(t.Context(), "/p", 10)
	if want := []string{notePrefix + "the tests were interrupted", "the parser panics on an empty file", "how do the tests run here?"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("prompts %q, %v; want %q", got, err, want)
	}
	hits := hitKeys(search(t, db, session.SearchQuery{Text: "interrupted", Dir: "/p"}))
	if !slices.Equal(hits, []string{"s1/2"}) {
		t.Errorf("hits %v, want the note s1/2", hits)
	}
}
