package ollamatest

import (
	"regexp"
	"strings"
	"testing"
)

// TestChatRejects checks the answers the real server gives to bad requests,
// and that none of them consumes a scripted reply.
func TestChatRejects(t *testing.T) {
	long := strings.Repeat("This is a test sentence to fill up the context window. ", 20)
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantType                 string
		wantBody                 string // exact, or a regexp when it starts with ^
	}{
		{"empty body", "POST", "/api/chat", ``, 400, "application/json; charset=utf-8", `{"error":"missing request body"}`},
		{"bad JSON", "POST", "/api/chat", `{x`, 400, "application/json; charset=utf-8", `{"error":"invalid character 'x' looking for beginning of object key string"}`},
		{"null body", "POST", "/api/chat", `null`, 400, "application/json; charset=utf-8", `{"error":"model is required"}`},
		{"missing model", "POST", "/api/chat", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "application/json; charset=utf-8", `{"error":"model is required"}`},
		{"unknown model, named as sent", "POST", "/api/chat", `{"model":"nope","messages":[]}`, 404, "application/json; charset=utf-8", `{"error":"model 'nope' not found"}`},
		{"tools to a model without tools", "POST", "/api/chat",
			`{"model":"gemma3:1b","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"getTime","parameters":{"type":"object","properties":{}}}}]}`,
			400, "application/json; charset=utf-8", `{"error":"registry.ollama.ai/library/gemma3:1b does not support tools"}`},
		{"think to a model without thinking", "POST", "/api/chat", `{"model":"gemma3:1b","think":true,"messages":[{"role":"user","content":"hi"}]}`,
			400, "application/json; charset=utf-8", `{"error":"\"gemma3:1b\" does not support thinking"}`},
		{"think level on a non-harmony model", "POST", "/api/chat", `{"model":"qwen3:8b","think":"high","messages":[{"role":"user","content":"hi"}]}`,
			400, "application/json; charset=utf-8", `{"error":"think value \"high\" is not supported for this model"}`},
		{"bad think value", "POST", "/api/chat", `{"model":"qwen3:8b","think":"max","messages":[]}`,
			400, "application/json; charset=utf-8", `^\{"error":"invalid think value: \\"max\\"`},
		{"option of the wrong type", "POST", "/api/chat", `{"model":"qwen3:8b","options":{"temperature":"0.5"},"messages":[{"role":"user","content":"hi"}]}`,
			500, "application/json; charset=utf-8", `{"error":"option \"temperature\" must be of type float32"}`},
		{"arguments sent as a string", "POST", "/api/chat",
			`{"model":"qwen3:8b","messages":[{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":"{\"a\":1}"}}]}]}`,
			400, "application/json; charset=utf-8", `{"error":"Value looks like object, but can't find closing '}' symbol"}`},
		{"content as parts", "POST", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
			400, "application/json; charset=utf-8", `^\{"error":"json: cannot unmarshal array into Go struct field`},
		{"images not in base64", "POST", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"hi","images":["not base64!"]}]}`,
			400, "application/json; charset=utf-8", `{"error":"illegal base64 data at input byte 3"}`},
		{"top_logprobs out of range", "POST", "/api/chat", `{"model":"qwen3:8b","top_logprobs":21,"messages":[]}`,
			400, "application/json; charset=utf-8", `{"error":"top_logprobs must be between 0 and 20"}`},
		{"truncate false and too long", "POST", "/api/chat",
			`{"model":"qwen3:8b","truncate":false,"options":{"num_ctx":128},"messages":[{"role":"user","content":"` + long + `"}]}`,
			400, "application/json", `{"error":"the input length exceeds the context length"}`},
		{"truncate false and too long, not streamed", "POST", "/api/chat",
			`{"model":"qwen3:8b","stream":false,"truncate":false,"options":{"num_ctx":128},"messages":[{"role":"user","content":"` + long + `"}]}`,
			400, "application/json; charset=utf-8", `{"error":"the input length exceeds the context length"}`},
		{"format neither json nor a schema", "POST", "/api/chat", `{"model":"qwen3:8b","format":"xml","messages":[{"role":"user","content":"hi"}]}`,
			500, "application/json", `{"error":"invalid format: \"\\\"xml\\\"\"; expected \"json\" or a valid JSON Schema object"}`},
		{"no messages loads the model", "POST", "/api/chat", `{"model":"QWEN3:8B"}`, 200, "application/json; charset=utf-8",
			`^\{"model":"QWEN3:8B","created_at":"[^"]+","message":\{"role":"assistant","content":""\},"done":true,"done_reason":"load"\}$`},
		{"keep_alive 0 unloads", "POST", "/api/chat", `{"model":"qwen3:8b","messages":[],"keep_alive":0}`, 200, "application/json; charset=utf-8",
			`^\{"model":"qwen3:8b","created_at":"[^"]+","message":\{"role":"assistant","content":""\},"done":true,"done_reason":"unload"\}$`},
		{"wrong method", "GET", "/api/chat", ``, 405, "text/plain", `405 method not allowed`},
		{"unknown path", "POST", "/api/nothing", `{}`, 404, "text/plain", `404 page not found`},
		{"OpenAI path is not served", "POST", "/v1/chat/completions", `{}`, 404, "text/plain", `404 page not found`},
	}
	s := New(t, WithModels(DefaultModel(), Model{Name: "gemma3:1b", Capabilities: []string{CapCompletion}}))
	s.Script(Reply{Content: "still here"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, s, tt.method, tt.path, tt.body)
			if resp.StatusCode != tt.wantStatus || resp.Header.Get("Content-Type") != tt.wantType {
				t.Errorf("status %d, Content-Type %q; want %d, %q", resp.StatusCode, resp.Header.Get("Content-Type"), tt.wantStatus, tt.wantType)
			}
			if !bodyMatches(body, tt.wantBody) {
				t.Errorf("body %s\nwant %s", body, tt.wantBody)
			}
		})
	}
	res := chat(t.Context(), newClient(t, s), userChat("qwen3:8b", "hi"))
	if res.err != nil || res.content != "still here" {
		t.Errorf("after the rejects: err %v, content %q; want the scripted reply", res.err, res.content)
	}
}

func bodyMatches(body, want string) bool {
	if strings.HasPrefix(want, "^") {
		return regexp.MustCompile(want).MatchString(body)
	}
	return body == want
}

// TestTruncateIsSilent checks that an overflowing prompt with truncate unset
// succeeds and reports prompt_eval_count = num_ctx, num_ctx being capped at
// the model's trained context.
func TestTruncateIsSilent(t *testing.T) {
	long := strings.Repeat("This is a test sentence to fill up the context window. ", 40)
	tests := []struct {
		name    string
		numCtx  any // nil: not sent
		want    int
		options Option
	}{
		{"num_ctx from the request", 128, 128, nil},
		{"num_ctx capped at the trained context", 100000, 300, nil},
		{"server default", nil, 256, WithDefaultContext(256)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []Option{WithModels(Model{Name: "small", ContextLength: 300})}
			if tt.options != nil {
				opts = append(opts, tt.options)
			}
			s := New(t, opts...)
			s.Script(Reply{Content: "2 + 2 = 4"})
			req := userChat("small", long)
			if tt.numCtx != nil {
				req.Options = map[string]any{"num_ctx": tt.numCtx}
			}
			res := chat(t.Context(), newClient(t, s), req)
			if res.err != nil || res.final == nil || res.final.PromptEvalCount != tt.want {
				t.Fatalf("err %v, final %+v; want prompt_eval_count %d", res.err, res.final, tt.want)
			}
		})
	}
}
