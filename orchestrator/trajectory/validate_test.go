package trajectory

import (
	"encoding/json"
	"strings"
	"testing"
)

// valid is a small valid document every case below breaks one way.
const valid = `{
  "schema_version": "ATIF-v1.6",
  "session_id": "s1",
  "agent": {"name": "lathe", "version": "1", "model_name": "m", "extra": {}},
  "steps": [
    {"step_id": 1, "source": "system", "message": "you are an agent", "timestamp": "2026-01-01T00:00:00Z"},
    {"step_id": 2, "source": "user", "message": [{"type": "text", "text": "look"},
      {"type": "image", "source": {"media_type": "image/png", "path": "a.png"}}]},
    {"step_id": 3, "source": "agent", "message": "", "reasoning_content": "r", "reasoning_effort": 0.5,
     "tool_calls": [{"tool_call_id": "c1", "function_name": "f", "arguments": {}}],
     "observation": {"results": [{"source_call_id": "c1", "content": "out"}, {"content": null}]},
     "metrics": {"prompt_tokens": 10, "completion_tokens": 2, "cached_tokens": 4, "cost_usd": 0,
                 "logprobs": [-0.5], "completion_token_ids": [1, 2]}}
  ],
  "final_metrics": {"total_prompt_tokens": 10, "total_steps": 3},
  "extra": {"k": "v"}
}`

func TestValidateAcceptsAValidDocument(t *testing.T) {
	if errs := Validate([]byte(valid)); errs != nil {
		t.Fatal(errs)
	}
}

// TestValidateRejects: each change makes the document invalid, and the
// problem is named where it is.
func TestValidateRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(doc map[string]any)
		want   string
	}{
		{"newer version", func(d map[string]any) { d["schema_version"] = "ATIF-v2.0" }, "schema_version: want one of"},
		{"no session id", func(d map[string]any) { delete(d, "session_id") }, "session_id: required"},
		{"null session id", func(d map[string]any) { d["session_id"] = nil }, "session_id: required"},
		{"unknown root field", func(d map[string]any) { d["metadata"] = map[string]any{} }, "metadata: unknown field"},
		{"agent without version", func(d map[string]any) { delete(agent(d), "version") }, "agent.version: required"},
		{"unknown agent field", func(d map[string]any) { agent(d)["model"] = "m" }, "agent.model: unknown field"},
		{"no steps", func(d map[string]any) { d["steps"] = []any{} }, "steps: needs at least one step"},
		{"steps out of order", func(d map[string]any) { step(d, 1)["step_id"] = 5 }, "steps[1].step_id: want 2"},
		{"step id zero", func(d map[string]any) { step(d, 0)["step_id"] = 0 }, "steps[0].step_id: must be 1 or more"},
		{"fractional step id", func(d map[string]any) { step(d, 0)["step_id"] = 1.5 }, "steps[0].step_id: want an integer"},
		{"bad source", func(d map[string]any) { step(d, 0)["source"] = "assistant" }, "steps[0].source: want one of"},
		{"no message", func(d map[string]any) { delete(step(d, 2), "message") }, "steps[2].message: required"},
		{"bad timestamp", func(d map[string]any) { step(d, 0)["timestamp"] = "yesterday" }, "steps[0].timestamp: "},
		{"user step with metrics", func(d map[string]any) { step(d, 1)["metrics"] = map[string]any{} },
			"steps[1].metrics: only a step whose source is agent"},
		{"system step with reasoning", func(d map[string]any) { step(d, 0)["reasoning_content"] = "x" },
			"steps[0].reasoning_content: only a step whose source is agent"},
		{"text part without text", func(d map[string]any) { delete(part(d, 0), "text") },
			"steps[1].message[0].text: required when type is text"},
		{"image part with text", func(d map[string]any) { part(d, 1)["text"] = "x" },
			"steps[1].message[1].text: not allowed when type is image"},
		{"bad media type", func(d map[string]any) { part(d, 1)["source"].(map[string]any)["media_type"] = "image/bmp" },
			"steps[1].message[1].source.media_type"},
		{"call without id", func(d map[string]any) { delete(call(d), "tool_call_id") },
			"steps[2].tool_calls[0].tool_call_id: required"},
		{"arguments not an object", func(d map[string]any) { call(d)["arguments"] = "{}" },
			"steps[2].tool_calls[0].arguments: want an object"},
		{"result of another call", func(d map[string]any) { result(d)["source_call_id"] = "c9" },
			`steps[2].observation.results[0].source_call_id: "c9" is not the tool_call_id`},
		{"unknown result field", func(d map[string]any) { result(d)["is_error"] = true },
			"steps[2].observation.results[0].is_error: unknown field"},
		{"observation without results", func(d map[string]any) { step(d, 2)["observation"] = map[string]any{} },
			"steps[2].observation.results: required"},
		{"token count as text", func(d map[string]any) { metrics(d)["prompt_tokens"] = "10" },
			"steps[2].metrics.prompt_tokens: want an integer"},
		{"unknown metric", func(d map[string]any) { metrics(d)["reward"] = 1 }, "steps[2].metrics.reward: unknown field"},
		{"negative total steps", func(d map[string]any) { d["final_metrics"].(map[string]any)["total_steps"] = -1 },
			"final_metrics.total_steps: must be 0 or more"},
		{"extra not an object", func(d map[string]any) { d["extra"] = "x" }, "extra: want an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal([]byte(valid), &doc); err != nil {
				t.Fatal(err)
			}
			tc.change(doc)
			data, _ := json.Marshal(doc)
			errs := Validate(data)
			for _, err := range errs {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Errorf("no error %q among %v", tc.want, errs)
		})
	}
	if errs := Validate([]byte("{")); len(errs) != 1 || !strings.Contains(errs[0].Error(), "not JSON") {
		t.Errorf("truncated JSON: %v", errs)
	}
}

func agent(d map[string]any) map[string]any { return d["agent"].(map[string]any) }
func step(d map[string]any, i int) map[string]any {
	return d["steps"].([]any)[i].(map[string]any)
}
func part(d map[string]any, i int) map[string]any {
	return step(d, 1)["message"].([]any)[i].(map[string]any)
}
func call(d map[string]any) map[string]any {
	return step(d, 2)["tool_calls"].([]any)[0].(map[string]any)
}
func result(d map[string]any) map[string]any {
	return step(d, 2)["observation"].(map[string]any)["results"].([]any)[0].(map[string]any)
}
func metrics(d map[string]any) map[string]any { return step(d, 2)["metrics"].(map[string]any) }
