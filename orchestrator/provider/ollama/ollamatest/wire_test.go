package ollamatest

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

var (
	createdAtPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$`)
	contentLine      = regexp.MustCompile(`^\{"model":"qwen3:8b","created_at":"[^"]+","message":\{"role":"assistant","content":"[^"]+"\},"done":false\}$`)
	thinkingLine     = regexp.MustCompile(`^\{"model":"qwen3:8b","created_at":"[^"]+","message":\{"role":"assistant","content":"","thinking":"[^"]+"\},"done":false\}$`)
	callLine         = regexp.MustCompile(`^\{"model":"qwen3:8b","created_at":"[^"]+","message":\{"role":"assistant","content":"","tool_calls":\[\{"id":"call_[a-z0-9]{8}","function":\{"index":0,"name":"edit","arguments":\{"z":1,"a":"\\u003cx\\u003e \\u0026"\}\}\}\]\},"done":false\}$`)
	finalLine        = regexp.MustCompile(`^\{"model":"qwen3:8b","created_at":"[^"]+","message":\{"role":"assistant","content":""\},"done":true,"done_reason":"stop","total_duration":\d+,"load_duration":\d+,"prompt_eval_count":\d+,"prompt_eval_duration":\d+,"eval_count":\d+,"eval_duration":\d+\}$`)
)

// TestChatWireBytes checks the raw stream against the v0.17.x recordings:
// content type, one object per line, key order, escaping, created_at.
func TestChatWireBytes(t *testing.T) {
	s := New(t)
	s.Script(Reply{
		Thinking:  "Edit <it>.",
		Content:   "I'll edit <b> & save.",
		ToolCalls: []ToolCall{{Name: "edit", Arguments: json.RawMessage(`{"z":1,"a":"<x> &"}`)}},
	})
	resp, body := post(t, s, "POST", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type %q, want %q", ct, "application/x-ndjson")
	}
	if resp.StatusCode != 200 || !strings.HasSuffix(body, "\n") {
		t.Fatalf("status %d, body %q: want 200 and lines ending in newline", resp.StatusCode, body)
	}
	if strings.ContainsAny(body, "<>&") {
		t.Errorf("body holds raw <, > or &; Go's encoder writes \\u003c etc.")
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	var kinds []string
	var last time.Time
	for i, line := range lines {
		checkOneObject(t, i, line)
		last = checkCreatedAt(t, i, line, last)
		switch {
		case thinkingLine.MatchString(line):
			kinds = append(kinds, "thinking")
		case contentLine.MatchString(line):
			kinds = append(kinds, "content")
		case callLine.MatchString(line):
			kinds = append(kinds, "call")
		case finalLine.MatchString(line) && i == len(lines)-1:
			kinds = append(kinds, "final")
		default:
			t.Errorf("line %d has an unexpected shape: %s", i, line)
		}
	}
	got := strings.Join(compact(kinds), ",")
	if got != "thinking,content,call,final" {
		t.Errorf("line kinds %s, want thinking,content,call,final", got)
	}
}

// checkOneObject checks that line is exactly one JSON object.
func checkOneObject(t *testing.T, i int, line string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Errorf("line %d: %v", i, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Errorf("line %d holds more than one JSON value", i)
	}
}

// checkCreatedAt checks created_at's format and that it never goes back.
func checkCreatedAt(t *testing.T, i int, line string, prev time.Time) time.Time {
	t.Helper()
	var v struct {
		CreatedAt string `json:"created_at"`
	}
	_ = json.Unmarshal([]byte(line), &v)
	if !createdAtPattern.MatchString(v.CreatedAt) {
		t.Errorf("line %d: created_at %q is not UTC RFC 3339 with nanoseconds", i, v.CreatedAt)
	}
	at, err := time.Parse(time.RFC3339Nano, v.CreatedAt)
	if err != nil || at.Before(prev) {
		t.Errorf("line %d: created_at %q (err %v) goes back from %v", i, v.CreatedAt, err, prev)
	}
	return at
}

// compact drops adjacent repeats: a,a,b → a,b.
func compact(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if len(out) == 0 || out[len(out)-1] != k {
			out = append(out, k)
		}
	}
	return out
}

func TestLegacyCallWireBytes(t *testing.T) {
	s := New(t)
	s.Script(Reply{ToolCalls: []ToolCall{{Name: "getTime"}}, CallFormat: CallFormatLegacy})
	_, body := post(t, s, "POST", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"time?"}]}`)
	want := `"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"getTime","arguments":{}}}]},"done":false}`
	if !strings.Contains(body, want) {
		t.Errorf("body\n%s\nlacks the old servers' call shape\n%s", body, want)
	}
}

// TestWireChunkMatchesAPI guards wireChunk against drifting from
// api.ChatResponse, whose field order is what a v0.17.4 server writes.
func TestWireChunkMatchesAPI(t *testing.T) {
	var args api.ToolCallFunctionArguments
	if err := json.Unmarshal([]byte(`{"b":"<1>","a":[1,2]}`), &args); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 28, 18, 34, 16, 110694939, time.UTC)
	m := metrics(coldLoad, 12, 12, 34)
	want, _ := json.Marshal(api.ChatResponse{
		Model: "m", CreatedAt: at, Done: true, DoneReason: "stop", Metrics: m,
		Message: api.Message{Role: "assistant", Thinking: "t", ToolCalls: []api.ToolCall{{
			ID: "call_abcdefgh", Function: api.ToolCallFunction{Index: 1, Name: "f", Arguments: args},
		}}},
	})
	one := 1
	got, _ := json.Marshal(wireChunk{
		Model: "m", CreatedAt: at, Done: true, DoneReason: "stop", Metrics: m,
		Message: wireMessage{Role: "assistant", Thinking: "t", ToolCalls: []wireToolCall{{
			ID: "call_abcdefgh", Function: wireFunction{Index: &one, Name: "f", Arguments: json.RawMessage(`{"b":"<1>","a":[1,2]}`)},
		}}},
	})
	if !bytes.Equal(got, want) {
		t.Errorf("wireChunk marshals as\n%s\napi.ChatResponse as\n%s", got, want)
	}
}
