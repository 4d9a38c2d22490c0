package session

import (
	"testing"

	"lathe/orchestrator/provider"
)

func TestMendAnswersAPromptLeftWithoutReply(t *testing.T) {
	msgs, added := Mend([]Message{{Seq: 0, Message: provider.Message{Role: "user", Content: "hello"}}}, 0, "interrupted")
	if len(msgs) != 2 || msgs[1].Role != "assistant" || len(added) != 1 || added[0].Seq != 1 || !added[0].Cut {
		t.Errorf("mend = %+v, added %+v", msgs, added)
	}
	msgs, _ = Mend([]Message{{Seq: 0, Message: provider.Message{Role: "user"}}, {Seq: 2, Message: provider.Message{Role: "user"}}}, 0, "interrupted")
	if len(msgs) != 2 {
		t.Errorf("a gap outside tool results: history %+v, want it to stop at the gap", msgs)
	}
}

func TestMendFillsTheResultsOfCallsThatNeverFinished(t *testing.T) {
	calls := []provider.ToolCall{{ID: "a", Name: "read"}, {ID: "b", Name: "read"}}
	msgs, added := Mend([]Message{
		{Seq: 0, Message: provider.Message{Role: "user", Content: "go"}},
		{Seq: 1, Message: provider.Message{Role: "assistant", ToolCalls: calls}},
		{Seq: 3, Message: provider.Message{Role: "tool", Content: "b done", ToolCallID: "b"}},
	}, 0, "never finished")
	if len(msgs) != 4 || msgs[2].ToolCallID != "a" || msgs[2].Content != "never finished" || msgs[3].Content != "b done" {
		t.Fatalf("history %+v", msgs)
	}
	if len(added) != 1 || added[0].Seq != 2 || added[0].Tool == nil || added[0].Tool.Outcome != "interrupted" {
		t.Errorf("added %+v, want the result at seq 2 marked interrupted", added)
	}
}

// TestMendFromASeq: a history read from a seq on (a resume after a
// compaction) is laid out and mended at the same seqs as read whole.
func TestMendFromASeq(t *testing.T) {
	calls := []provider.ToolCall{{ID: "a", Name: "read"}, {ID: "b", Name: "read"}}
	saved := []Message{
		{Seq: 0, Message: provider.Message{Role: "user", Content: "first"}},
		{Seq: 1, Message: provider.Message{Role: "assistant", Content: "done"}},
		{Seq: 2, Message: provider.Message{Role: "user", Content: "go"}},
		{Seq: 3, Message: provider.Message{Role: "assistant", ToolCalls: calls}},
		{Seq: 5, Message: provider.Message{Role: "tool", Content: "b done", ToolCallID: "b"}},
		{Seq: 6, Message: provider.Message{Role: "user", Content: "more"}},
	}
	whole, wholeAdded := Mend(saved, 0, "never finished")
	for _, from := range []int{2, 3} {
		msgs, added := Mend(saved[from:], from, "never finished")
		if len(msgs) != len(whole)-from || msgs[0].Content != whole[from].Content || msgs[4-from].ToolCallID != "a" ||
			msgs[len(msgs)-1].Role != "assistant" {
			t.Fatalf("from %d: history %+v", from, msgs)
		}
		if len(added) != 2 || added[0].Seq != 4 || added[1].Seq != 7 || added[0].Seq != wholeAdded[0].Seq || !added[1].Cut {
			t.Errorf("from %d: added %+v, want the result at seq 4 and the reply at 7", from, added)
		}
	}
	if msgs, added := Mend(saved[4:], 4, "x"); len(msgs) != 0 || len(added) != 0 {
		t.Errorf("from a seq missing: %+v, %+v, want nothing", msgs, added)
	}
}
