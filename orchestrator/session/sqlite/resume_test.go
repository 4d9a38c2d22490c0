package sqlite

import (
	"reflect"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// TestLoadResume: a session compacted at seq 4 loads with its messages
// from seq 4 on, as Load reads them, and none before; Messages reads any
// range of them whole. A session never compacted loads whole.
func TestLoadResume(t *testing.T) {
	ctx := t.Context()
	db := openTest(t)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	msgs := []provider.Message{
		{Role: "user", Content: "read main.go"},
		{Role: "assistant", Thinking: "read it", ToolCalls: []provider.ToolCall{call(t, "c1", 0, "read_file", `{"path":"main.go"}`)}},
		{Role: "tool", Content: "package main", ToolName: "read_file", ToolCallID: "c1"},
		{Role: "assistant", Content: "It is empty."},
		{Role: "user", Content: "fill it"},
		{Role: "assistant", Content: "Done."},
	}
	for _, id := range []string{"compacted", "whole"} {
		if err := db.CreateSession(ctx, session.Record{ID: id, Dir: "/p", Created: at}); err != nil {
			t.Fatal(err)
		}
		for seq, m := range msgs {
			if err := db.SaveMessage(ctx, id, session.Message{Seq: seq, Message: m, Created: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.SaveCompaction(ctx, "compacted", session.Compaction{Seq: 4, Summary: "read main.go", Created: at}); err != nil {
		t.Fatal(err)
	}
	whole, err := db.Load(ctx, "compacted")
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.LoadResume(ctx, "compacted")
	if err != nil {
		t.Fatal(err)
	}
	if got.From != 4 || len(got.Messages) != len(msgs)-4 || got.Compaction == nil || got.Compaction.Seq != 4 {
		t.Fatalf("LoadResume: from %d, %d messages, compaction %v", got.From, len(got.Messages), got.Compaction)
	}
	if !reflect.DeepEqual(got.Messages, whole.Messages[4:]) {
		t.Errorf("the messages from the compaction on differ from Load's:\n%+v\n%+v", got.Messages, whole.Messages[4:])
	}
	if got.Title != whole.Title || got.Dir != whole.Dir || !reflect.DeepEqual(got.Modes, whole.Modes) {
		t.Errorf("LoadResume's header or modes differ from Load's: %+v against %+v", got, whole)
	}
	page, err := db.Messages(ctx, "compacted", 1, 3)
	if err != nil || !reflect.DeepEqual(page, whole.Messages[1:3]) {
		t.Errorf("Messages(1, 3): %+v, %v", page, err)
	}
	if all, err := db.LoadResume(ctx, "whole"); err != nil || all.From != 0 || len(all.Messages) != len(msgs) ||
		all.Messages[2].Message.Content != "package main" {
		t.Errorf("a session never compacted: from %d, %d messages, %v", all.From, len(all.Messages), err)
	}
}
