package sqlite

import (
	"errors"
	"maps"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// TestHeader: a session's header says where and with which model it goes
// on, and reads none of its messages, compaction or modes; a session
// that does not exist is ErrNotFound.
func TestHeader(t *testing.T) {
	ctx := t.Context()
	db := openTest(t)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	rec := session.Record{ID: "s1", Title: "fix the parser", Dir: "/p", Model: "qwen3:8b", Created: at}
	if err := db.CreateSession(ctx, rec); err != nil {
		t.Fatal(err)
	}
	for seq, m := range []provider.Message{{Role: "user", Content: "fix it"}, {Role: "assistant", Content: "Done."}} {
		if err := db.SaveMessage(ctx, "s1", session.Message{Seq: seq, Message: m, Created: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SaveCompaction(ctx, "s1", session.Compaction{Seq: 1, Summary: "fixed", Created: at}); err != nil {
		t.Fatal(err)
	}
	h, err := db.Header(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if h.ID != "s1" || h.Title != rec.Title || h.Dir != "/p" || h.Model != "qwen3:8b" || !h.Created.Equal(at) {
		t.Errorf("header: %+v", h.Record)
	}
	if len(h.Messages) != 0 || h.Compaction != nil || len(h.Modes) != 0 {
		t.Errorf("the header read %d messages, compaction %v, %d modes", len(h.Messages), h.Compaction, len(h.Modes))
	}
	if _, err := db.Header(ctx, "nope"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("a session that does not exist: %v", err)
	}
}

// TestPromptsBefore: a session's messages of role user before a seq, by
// seq, and nothing of another session.
func TestPromptsBefore(t *testing.T) {
	ctx := t.Context()
	db := openTest(t)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for _, id := range []string{"s1", "s2"} {
		if err := db.CreateSession(ctx, session.Record{ID: id, Dir: "/p", Created: at}); err != nil {
			t.Fatal(err)
		}
		for seq, m := range []provider.Message{{Role: "user", Content: id + " first"}, {Role: "assistant", Content: "Done."},
			{Role: "user", Content: id + " second"}, {Role: "assistant", Content: "Done."}, {Role: "user", Content: id + " third"}} {
			if err := db.SaveMessage(ctx, id, session.Message{Seq: seq, Message: m, Created: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := db.PromptsBefore(ctx, "s1", 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int]string{0: "s1 first", 2: "s1 second"}; !maps.Equal(got, want) {
		t.Errorf("prompts before 4: %v, want %v", got, want)
	}
}
