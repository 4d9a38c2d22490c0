package ollama

import (
	"encoding/json"
	"testing"

	"lathe/provider"
)

// TestWireCacheFollowsChanges: the translation of the last request is
// reused only for the messages that are the same; a message changed in
// place (a mode's new system prompt) or a different history is translated
// anew.
func TestWireCacheFollowsChanges(t *testing.T) {
	var w wireCache
	msgs := []provider.Message{{Role: "system", Content: "build"}, {Role: "user", Content: "hi"},
		{Role: "assistant", ToolCalls: []provider.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}}}
	first := w.messages(msgs)
	if len(first) != 3 || first[2].ToolCalls[0].Function.Arguments.String() != `{"path":"a"}` {
		t.Fatalf("first = %+v", first)
	}
	msgs[0].Content = "plan" // changed in place, as a mode change does
	msgs = append(msgs, provider.Message{Role: "tool", Content: "x", ToolCallID: "c1"})
	second := w.messages(msgs)
	if second[0].Content != "plan" || len(second) != 4 || second[3].Content != "x" {
		t.Errorf("second = %+v", second)
	}
	msgs[2].ToolCalls = []provider.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"b"}`)}}
	if got := w.messages(msgs)[2].ToolCalls[0].Function.Arguments.String(); got != `{"path":"b"}` {
		t.Errorf("changed arguments translated as %s", got)
	}
	other := w.messages([]provider.Message{{Role: "system", Content: "summarize"}})
	if len(other) != 1 || other[0].Content != "summarize" {
		t.Errorf("another history = %+v", other)
	}
	specs := []provider.ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	if tl := w.toolsFor(specs); len(tl) != 1 || tl[0].Function.Name != "a" {
		t.Errorf("tools = %+v", tl)
	}
	if tl := w.toolsFor(nil); len(tl) != 0 {
		t.Errorf("no tools = %+v", tl)
	}
}
