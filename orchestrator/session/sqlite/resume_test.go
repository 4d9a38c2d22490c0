package sqlite

import (
	"reflect"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// TestLoadResume: a session compacted at seq 4 loads with its messages
// from seq 4 on whole, as Load reads them, and the four before as stubs
// that keep only the prompts; Messages reads any range of them whole.
// A session never compacted loads whole.
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
	if got.Stubbed != 4 || len(got.Messages) != len(msgs) || got.Compaction == nil || got.Compaction.Seq != 4 {
		t.Fatalf("LoadResume: %d stubs, %d messages, compaction %v", got.Stubbed, len(got.Messages), got.Compaction)
	}
	want := []provider.Message{{Role: "user", Content: "read main.go"}, {}, {}, {}}
	for i, m := range got.Messages[:4] {
		if m.Seq != i || !reflect.DeepEqual(m.Message, want[i]) {
			t.Errorf("stub %d: %+v, want %+v", i, m, want[i])
		}
	}
	if !reflect.DeepEqual(got.Messages[4:], whole.Messages[4:]) {
		t.Errorf("the messages after the compaction differ from Load's:\n%+v\n%+v", got.Messages[4:], whole.Messages[4:])
	}
	page, err := db.Messages(ctx, "compacted", 1, 3)
	if err != nil || !reflect.DeepEqual(page, whole.Messages[1:3]) {
		t.Errorf("Messages(1, 3): %+v, %v", page, err)
	}
	if all, err := db.LoadResume(ctx, "whole"); err != nil || all.Stubbed != 0 || len(all.Messages) != len(msgs) ||
		all.Messages[2].Message.Content != "package main" {
		t.Errorf("a session never compacted: %d stubs, %d messages, %v", all.Stubbed, len(all.Messages), err)
	}
}
