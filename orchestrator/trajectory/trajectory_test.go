package trajectory

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator"
	"lathe/tools"
)

// clock ticks a second at each reading.
func clock() func() time.Time {
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// multiTurn is a run of three turns: the model thinks and reads a file
// (a call with the server's id), then writes one and lists a directory
// (calls without ids, as Ollama sends them), the conversation is
// compacted, then it answers.
func multiTurn(r *Recorder) {
	for _, ev := range []orchestrator.Event{
		orchestrator.TurnStarted{Turn: 1, Model: "qwen3:8b"},
		orchestrator.ThinkingDelta{Turn: 1, Text: "I should "},
		orchestrator.ThinkingDelta{Turn: 1, Text: "read it."},
		orchestrator.TextDelta{Turn: 1, Text: "Reading."},
		orchestrator.TurnFinished{Turn: 1, PromptTokens: 1200, CompletionTokens: 30, Duration: 2 * time.Second,
			Timing: orchestrator.Timing{Load: 5 * time.Millisecond, FirstToken: 900 * time.Millisecond,
				PrefillTokens: 1200, PrefillRate: 1333.33, DecodeRate: 41.26}},
		orchestrator.ToolStarted{Turn: 1, Index: 0, ID: "call_abc", Name: "read_file", Args: `{"path":"a.txt"}`},
		orchestrator.ToolFinished{Turn: 1, Index: 0, ID: "call_abc", Name: "read_file", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Content: "1\thello", Summary: "1 line"}, Duration: 3 * time.Millisecond},
		orchestrator.TurnStarted{Turn: 2, Model: "qwen3:8b"},
		orchestrator.TextDelta{Turn: 2, Text: `<tool_call>{"name":"write_file"}</tool_call>`},
		orchestrator.ReplyRewritten{Turn: 2, Content: "Writing."},
		orchestrator.TurnFinished{Turn: 2, PromptTokens: 1300, CompletionTokens: 60,
			Timing: orchestrator.Timing{CachedTokens: 1230, PrefillTokens: 70}},
		orchestrator.ToolStarted{Turn: 2, Index: 0, Name: "write_file", Args: `{"path":"b.txt","content":"hi"}`},
		orchestrator.ToolStarted{Turn: 2, Index: 1, Name: "list_dir", Args: `not json`},
		orchestrator.ToolFinished{Turn: 2, Index: 0, Name: "write_file", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Content: "created b.txt"}},
		orchestrator.ToolFinished{Turn: 2, Index: 1, Name: "list_dir", Outcome: orchestrator.OutcomeFailed,
			Result: tools.Result{Content: "error: arguments are not a JSON object", IsError: true}},
		orchestrator.Compacted{Summarized: 4, Before: 9000, After: 2000},
		orchestrator.Warning{Text: "the reply was cut off"},
		orchestrator.TurnStarted{Turn: 3, Model: "qwen3:8b"},
		orchestrator.TextDelta{Turn: 3, Text: "Done: b.txt "},
		orchestrator.TextDelta{Turn: 3, Text: "holds hi."},
		orchestrator.TurnFinished{Turn: 3, PromptTokens: 1400, CompletionTokens: 10,
			Timing: orchestrator.Timing{CachedTokens: 1390}},
	} {
		r.Event(ev)
	}
}

func TestRecorderMultiTurnRun(t *testing.T) {
	r := NewRecorder(Options{Agent: "lathe", Version: "v1.2.3", Model: "qwen3:8b", Prompt: "write b.txt", Now: clock()})
	multiTurn(r)
	traj := r.Finish(orchestrator.Result{StopReason: orchestrator.StopDone, Turns: 3, ToolCalls: 3, Model: "qwen3:8b",
		SessionID: "0195-abc", Duration: 7 * time.Second}, nil)
	data, err := Marshal(traj)
	if err != nil {
		t.Fatal(err)
	}
	if errs := Validate(data); errs != nil {
		t.Fatalf("the recorded trajectory is not valid ATIF:\n%v\n%s", errors.Join(errs...), data)
	}
	// Read back as any consumer would, field by field.
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	want := func(path string, got, want any) {
		t.Helper()
		if jsonText(got) != jsonText(want) {
			t.Errorf("%s = %s, want %s", path, jsonText(got), jsonText(want))
		}
	}
	want("schema_version", doc["schema_version"], "ATIF-v1.6")
	want("session_id", doc["session_id"], "0195-abc")
	want("agent", doc["agent"], map[string]any{"name": "lathe", "version": "v1.2.3", "model_name": "qwen3:8b"})
	steps := doc["steps"].([]any)
	step := func(i int) map[string]any { return steps[i].(map[string]any) }
	if len(steps) != 5 {
		t.Fatalf("%d steps, want 5 (the prompt, three turns, the compaction):\n%s", len(steps), data)
	}
	want("steps[0]", step(0), map[string]any{"step_id": 1, "timestamp": "2026-03-01T12:00:01Z", "source": "user",
		"message": "write b.txt"})
	s1 := step(1)
	want("steps[1].source", s1["source"], "agent")
	want("steps[1].step_id", s1["step_id"], 2)
	want("steps[1].model_name", s1["model_name"], "qwen3:8b")
	want("steps[1].message", s1["message"], "Reading.")
	want("steps[1].reasoning_content", s1["reasoning_content"], "I should read it.")
	want("steps[1].tool_calls", s1["tool_calls"], []any{map[string]any{"tool_call_id": "call_abc",
		"function_name": "read_file", "arguments": map[string]any{"path": "a.txt"}}})
	want("steps[1].observation", s1["observation"], map[string]any{"results": []any{
		map[string]any{"source_call_id": "call_abc", "content": "1\thello"}}})
	want("steps[1].metrics", s1["metrics"], map[string]any{"prompt_tokens": 1200, "completion_tokens": 30,
		"cached_tokens": 0, "extra": map[string]any{"duration_ms": 2000, "load_ms": 5, "first_token_ms": 900,
			"prefill_tokens": 1200, "prefill_tps": 1333.3, "decode_tps": 41.3, "eval_ms": 0}})
	want("steps[1].extra", s1["extra"], map[string]any{"tool_outcomes": []any{map[string]any{
		"tool_call_id": "call_abc", "outcome": "ok", "duration_ms": 3, "summary": "1 line"}}})
	s2 := step(2)
	want("steps[2].message", s2["message"], "Writing.")
	want("steps[2].tool_calls", s2["tool_calls"], []any{
		map[string]any{"tool_call_id": "call_2_0", "function_name": "write_file",
			"arguments": map[string]any{"path": "b.txt", "content": "hi"}},
		map[string]any{"tool_call_id": "call_2_1", "function_name": "list_dir",
			"arguments": map[string]any{"_unparsed": "not json"}}})
	want("steps[2].observation", s2["observation"], map[string]any{"results": []any{
		map[string]any{"source_call_id": "call_2_0", "content": "created b.txt"},
		map[string]any{"source_call_id": "call_2_1", "content": "error: arguments are not a JSON object"}}})
	want("steps[2].metrics.cached_tokens", s2["metrics"].(map[string]any)["cached_tokens"], 1230)
	want("steps[3]", step(3), map[string]any{"step_id": 4, "timestamp": step(3)["timestamp"], "source": "system",
		"message": "compacted: 4 older messages summarized for the model (9000 → 2000 tokens)",
		"extra":   map[string]any{"event": "compacted"}})
	want("steps[4].message", step(4)["message"], "Done: b.txt holds hi.")
	if _, ok := step(4)["tool_calls"]; ok {
		t.Error("a turn without calls has tool_calls")
	}
	fm := doc["final_metrics"].(map[string]any)
	want("final_metrics.total_prompt_tokens", fm["total_prompt_tokens"], 3900)
	want("final_metrics.total_completion_tokens", fm["total_completion_tokens"], 100)
	want("final_metrics.total_cached_tokens", fm["total_cached_tokens"], 2620)
	want("final_metrics.total_steps", fm["total_steps"], 5)
	if _, ok := fm["extra"].(map[string]any)["prefill_ms"]; !ok {
		t.Error("final_metrics.extra has no prefill_ms")
	}
	want("extra", doc["extra"], map[string]any{"stop_reason": "done", "turns": 3, "tool_calls": 3,
		"duration_ms": 7000, "warnings": []any{"the reply was cut off"}})
}

// TestRecorderUnsavedRun: a run that saved no session still has an id,
// and its error is kept.
func TestRecorderUnsavedRun(t *testing.T) {
	r := NewRecorder(Options{Agent: "lathe", Version: "dev", Prompt: "hi"})
	traj := r.Finish(orchestrator.Result{StopReason: orchestrator.StopError}, errors.New("cannot reach Ollama"))
	data, _ := Marshal(traj)
	if errs := Validate(data); errs != nil {
		t.Fatalf("%v\n%s", errors.Join(errs...), data)
	}
	if !strings.HasPrefix(traj.SessionID, "unsaved-") || len(traj.SessionID) < 12 {
		t.Errorf("session_id %q", traj.SessionID)
	}
	if traj.Extra["error"] != "cannot reach Ollama" {
		t.Errorf("extra %v", traj.Extra)
	}
}

func TestAppend(t *testing.T) {
	a := NewRecorder(Options{Agent: "lathe", Version: "dev", Prompt: "first"})
	multiTurn(a)
	ta := a.Finish(orchestrator.Result{SessionID: "s"}, nil)
	b := NewRecorder(Options{Agent: "lathe", Version: "dev", Prompt: "the tests failed"})
	b.Event(orchestrator.TurnStarted{Turn: 1})
	b.Event(orchestrator.TurnFinished{Turn: 1, PromptTokens: 2000, CompletionTokens: 5})
	tb := b.Finish(orchestrator.Result{SessionID: "s"}, nil)
	got := Append(ta, tb)
	data, _ := Marshal(got)
	if errs := Validate(data); errs != nil {
		t.Fatalf("%v\n%s", errors.Join(errs...), data)
	}
	if len(got.Steps) != 7 || got.Steps[5].Message != "the tests failed" || got.Steps[6].StepID != 7 {
		t.Errorf("steps %+v", got.Steps)
	}
	if fm := got.FinalMetrics; fm.TotalPromptTokens != 5900 || fm.TotalSteps != 7 {
		t.Errorf("final metrics %+v", fm)
	}
	if Append(nil, tb) != tb || Append(ta, nil) != ta {
		t.Error("appending nothing changed the trajectory")
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	var x any
	_ = json.Unmarshal(b, &x) // numbers compared as JSON writes them
	b, _ = json.Marshal(x)
	return string(b)
}
