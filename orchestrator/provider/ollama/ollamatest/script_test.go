package ollamatest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

func TestLoadScriptRoundTrip(t *testing.T) {
	replies := []Reply{
		{Thinking: "Look first.", Content: "Reading.", ToolCalls: []ToolCall{{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go","limit":10}`)}}},
		{ToolCalls: []ToolCall{{ID: "call_x", Name: "ls"}}, Calls: CallsOnDone, CallFormat: CallFormatHarmony},
		{Content: "cut", DoneReason: "length", EvalCount: 3, PromptEvalCount: 9},
		{Status: 503, Error: "busy"},
		{Content: "a b c", ErrorLine: "boom", AfterChunks: 1},
		{Content: "a b c", Drop: true, AfterChunks: 2},
		{Hang: true},
		{Content: "And then? ", Endless: true, Drop: true, AfterChunks: 500},
	}
	data, err := json.MarshalIndent(replies, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadScript(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("LoadScript: %v\n%s", err, data)
	}
	if !reflect.DeepEqual(got, replies) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", got, replies)
	}
}

func TestLoadScriptErrors(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"syntax error names line and column", "[\n  {\"content\": \"a\"},\n  {\"content\" \"b\"}\n]", "line 3, column 14"},
		{"not an array", `{"content":"a"}`, "want a JSON array"},
		{"unknown key", "[\n{\"content\":\"a\"},\n{\"contnet\":\"b\"}]", `reply 1 (line 3): json: unknown field "contnet"`},
		{"arguments not an object", `[{"tool_calls":[{"name":"f","arguments":"{\"a\":1}"}]}]`, "want a JSON object"},
		{"call without name", `[{"tool_calls":[{"arguments":{}}]}]`, "name is empty"},
		{"two failure modes", `[{"drop":true,"hang":true}]`, "at most one"},
		{"error without status", `[{"error":"x"}]`, "use error_line"},
		{"status out of range", `[{"status":200}]`, "want 400 to 599"},
		{"after_chunks alone", `[{"content":"a","after_chunks":1}]`, "needs error_line, drop or hang"},
		{"unknown calls value", `[{"calls":"later"}]`, `calls "later"`},
		{"unknown call format", `[{"call_format":"v1"}]`, `call_format "v1"`},
		{"endless with calls", `[{"content":"a","endless":true,"tool_calls":[{"name":"f"}]}]`, "endless needs content or thinking, and no tool_calls"},
		{"endless without text", `[{"endless":true}]`, "endless needs content"},
		{"trailing data", `[] []`, "after top-level value"},
		{"truncated", `[{"content":"a"}`, "unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadScript(strings.NewReader(tt.script))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadScript error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestUnusedRepliesFailTheTest(t *testing.T) {
	ft := newFake(t)
	s := New(ft)
	s.Script(Reply{Content: "used"}, Reply{Content: "never used", ToolCalls: []ToolCall{{Name: "ls"}}})
	if res := chat(t.Context(), newClient(t, s), userChat("qwen3:8b", "hi")); res.err != nil {
		t.Fatal(res.err)
	}
	if errs := ft.errors(); len(errs) != 0 {
		t.Fatalf("errors before cleanup: %q", errs)
	}
	ft.runCleanups()
	errs := ft.errors()
	if len(errs) != 1 || !strings.Contains(errs[0], "1 scripted replies left unused") || !strings.Contains(errs[0], `"never used"`) {
		t.Errorf("cleanup errors %q, want one naming the unused reply", errs)
	}
}

func TestNoReplyLeftFailsTheTest(t *testing.T) {
	ft := newFake(t)
	s := New(ft)
	res := chat(t.Context(), newClient(t, s), userChat("qwen3:8b", "create test.txt please"))
	var se api.StatusError
	if !errors.As(res.err, &se) || se.StatusCode != 500 || se.ErrorMessage != "ollamatest: no scripted reply left" {
		t.Errorf("Chat: %#v, want 500 %q", res.err, "ollamatest: no scripted reply left")
	}
	errs := ft.errors()
	if len(errs) != 1 || !strings.Contains(errs[0], "no scripted reply left") || !strings.Contains(errs[0], `"create test.txt please"`) {
		t.Errorf("errors %q, want one naming the request's last message", errs)
	}
}

func TestBadRepliesFailTheTest(t *testing.T) {
	ft := newFake(t)
	s := New(ft)
	s.Script(Reply{Drop: true, Hang: true})
	if errs := ft.errors(); len(errs) != 1 || !strings.Contains(errs[0], "Script reply 0") {
		t.Errorf("Script errors %q, want one for reply 0", errs)
	}
	s.Script(Reply{Func: func(api.ChatRequest) Reply { return Reply{Status: 200} }})
	res := chat(t.Context(), newClient(t, s), userChat("qwen3:8b", "hi"))
	var se api.StatusError
	if !errors.As(res.err, &se) || se.StatusCode != 500 {
		t.Errorf("Chat with a bad Func reply: %v, want a 500", res.err)
	}
	if errs := ft.errors(); len(errs) != 2 || !strings.Contains(errs[1], "Func reply") {
		t.Errorf("errors %q, want a second one for the Func reply", errs)
	}
}

func TestInvalidModelFailsNew(t *testing.T) {
	ft := newFake(t)
	New(ft, WithModels(Model{Name: "bad name!"}))
	if errs := ft.errors(); len(errs) != 1 || !strings.Contains(errs[0], `invalid model name "bad name!"`) {
		t.Errorf("errors %q", errs)
	}
}

func TestRespondAnswersWhatIsNotScripted(t *testing.T) {
	s := New(t)
	s.Script(Reply{Content: "scripted first"})
	n := 0
	s.Respond(func(api.ChatRequest) Reply {
		n++
		return Reply{Content: fmt.Sprintf("computed %d", n)}
	})
	c := newClient(t, s)
	var got []string
	for range 3 {
		req := api.ChatRequest{Model: "qwen3:8b", Messages: []api.Message{{Role: "user", Content: "hi"}}}
		res := chat(t.Context(), c, &req)
		if res.err != nil {
			t.Fatal(res.err)
		}
		got = append(got, res.content)
	}
	if strings.Join(got, "|") != "scripted first|computed 1|computed 2" {
		t.Errorf("replies = %q", got)
	}
}
