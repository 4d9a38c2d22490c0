package provider

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestWireCacheFollowsChanges: the translation of the last request is
// reused only for the messages that are the same, and only those are not
// translated again; a message changed in place (a mode's new system
// prompt) or a different history is translated anew.
func TestWireCacheFollowsChanges(t *testing.T) {
	translated := 0
	w := WireCache[string, []string]{
		Message: func(m Message) string {
			translated++
			s := m.Role + ":" + m.Content
			for _, c := range m.ToolCalls {
				s += " " + c.Name + string(c.Arguments)
			}
			return s
		},
		Tools: func(specs []ToolSpec) []string {
			var names []string
			for _, s := range specs {
				names = append(names, s.Name)
			}
			return names
		},
	}
	check := func(step string, in []Message, want []string, wantReused, wantTranslated int) {
		t.Helper()
		translated = 0
		out, reused := w.Messages(in)
		if !slices.Equal(out, want) || reused != wantReused || translated != wantTranslated {
			t.Errorf("%s: %q, reused %d, translated %d; want %q, %d, %d", step, out, reused, translated, want, wantReused, wantTranslated)
		}
	}
	msgs := []Message{{Role: "system", Content: "build"}, {Role: "user", Content: "hi"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}}}
	check("first", msgs, []string{"system:build", "user:hi", `assistant: read_file{"path":"a"}`}, 0, 3)
	msgs = append(msgs, Message{Role: "tool", Content: "x", ToolCallID: "c1"})
	check("appended", msgs, []string{"system:build", "user:hi", `assistant: read_file{"path":"a"}`, "tool:x"}, 3, 1)
	msgs[0].Content = "plan" // changed in place, as a mode change does
	check("system prompt changed", msgs, []string{"system:plan", "user:hi", `assistant: read_file{"path":"a"}`, "tool:x"}, 0, 4)
	msgs[2].ToolCalls = []ToolCall{{ID: "c1", Name: "read_file", Arguments: bytes.Clone(json.RawMessage(`{"path":"b"}`))}}
	check("arguments changed", msgs, []string{"system:plan", "user:hi", `assistant: read_file{"path":"b"}`, "tool:x"}, 2, 2)
	check("another history", []Message{{Role: "system", Content: "summarize"}}, []string{"system:summarize"}, 0, 1)

	specs := []ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	if tl := w.ToolsFor(specs); !slices.Equal(tl, []string{"a"}) {
		t.Errorf("tools = %q", tl)
	}
	specs[0].Name = "b" // the caller's slice changed: the cache kept its own copy
	if tl := w.ToolsFor(specs); !slices.Equal(tl, []string{"b"}) {
		t.Errorf("changed tools = %q", tl)
	}
	if tl := w.ToolsFor(nil); len(tl) != 0 {
		t.Errorf("no tools = %q", tl)
	}
}
