package openaitest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// sse posts body to srv's chat endpoint and returns the data lines.
func sse(t *testing.T, srv *Server, body string) []string {
	t.Helper()
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q: %s", ct, b)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestShapes: each kind streams the chunks its server writes (see the
// package documentation): the first delta, the reasoning's field, a call's
// first delta, the finish chunk, the usage chunk, [DONE].
func TestShapes(t *testing.T) {
	const body = `{"model":"qwen3:8b","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
	reply := ollamatest.Reply{Thinking: "Hm", Content: "Ok", ToolCalls: []ollamatest.ToolCall{{Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}}
	tests := []struct {
		kind Kind
		want []string
	}{
		{LlamaCpp, []string{
			`"delta":{"content":null,"role":"assistant"}`, `"delta":{"reasoning_content":"Hm"}`,
			`"tool_calls":[{"function":{"arguments":"","name":"read"},"id":"call_000001","index":0,"type":"function"}]`,
			`"delta":{},"finish_reason":"tool_calls"`, `"choices":[]`, `"prompt_tokens_details":{"cached_tokens":0}`, `"timings":`,
			`"system_fingerprint":"b7100-`}},
		{VLLM, []string{
			`"delta":{"content":"","role":"assistant"}`, `"delta":{"reasoning":"Hm"}`,
			`"tool_calls":[{"function":{"name":"read"},"id":"chatcmpl-tool-000001","index":0,"type":"function"}]`,
			`"delta":{"content":""},"finish_reason":"tool_calls"`, `"stop_reason":null`, `"choices":[]`, `"prompt_tokens_details":null`}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := New(t, tt.kind)
			srv.Script(reply)
			lines := sse(t, srv, body)
			all := strings.Join(lines, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("no %s in\n%s", w, all)
				}
			}
			if lines[len(lines)-1] != "[DONE]" || !strings.Contains(lines[len(lines)-2], `"usage":`) {
				t.Errorf("the stream does not end with the usage and [DONE]:\n%s", all)
			}
		})
	}
}
