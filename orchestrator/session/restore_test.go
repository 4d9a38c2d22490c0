package session

import (
	"testing"

	"lathe/orchestrator/provider"
)

func TestMendAnswersAPromptLeftWithoutReply(t *testing.T) {
	msgs, added := Mend([]Message{{Seq: 0, Message: provider.Message{Role: "user", Content: "hello"}}}, "interrupted")
	if len(msgs) != 2 || msgs[1].Role != "assistant" || len(added) != 1 || added[0].Seq != 1 || !added[0].Cut {
		t.Errorf("mend = %+v, added %+v", msgs, added)
	}
	msgs, _ = Mend([]Message{{Seq: 0, Message: provider.Message{Role: "user"}}, {Seq: 2, Message: provider.Message{Role: "user"}}}, "interrupted")
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
	}, "never finished")
	if len(msgs) != 4 || msgs[2].ToolCallID != "a" || msgs[2].Content != "never finished" || msgs[3].Content != "b done" {
		t.Fatalf("history %+v", msgs)
	}
	if len(added) != 1 || added[0].Seq != 2 || added[0].Tool == nil || added[0].Tool.Outcome != "interrupted" {
		t.Errorf("added %+v, want the result at seq 2 marked interrupted", added)
	}
}
