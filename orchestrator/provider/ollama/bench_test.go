package ollama

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
)

// BenchmarkRequest measures turning a conversation into the wire request,
// which happens on every turn: a 200-message history with a tool call in
// every other message.
func BenchmarkRequest(b *testing.B) {
	msgs := []provider.Message{{Role: "system", Content: strings.Repeat("You are lathe. ", 80)}}
	for i := range 100 {
		msgs = append(msgs,
			provider.Message{Role: "assistant", Content: "Reading the next file.", Thinking: strings.Repeat("hmm ", 50),
				ToolCalls: []provider.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "read_file",
					Arguments: json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go","offset":1,"limit":200}`, i))}}},
			provider.Message{Role: "tool", Content: strings.Repeat("line of code\n", 80), ToolName: "read_file",
				ToolCallID: fmt.Sprintf("call_%d", i)})
	}
	tools := []provider.ToolSpec{{Name: "read_file", Description: "Read a file.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"path"}},"required":["path"]}`)}}
	c := newClient(&testing.T{}, "http://127.0.0.1:11434")
	req := &provider.Request{Model: provider.ModelInfo{Name: "qwen3:8b", NumCtx: 32768}, Messages: msgs, Tools: tools}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.request(req)
	}
}
