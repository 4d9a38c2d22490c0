package print

import (
	"strings"
	"testing"
	"time"

	"lathe/orchestrator"
	"lathe/orchestrator/plan"
	"lathe/tools"
)

// TestStreamJSONEveryEvent: each event the stream carries, as one line in
// its exact form (omitted fields, nulls, HTML left unescaped); thinking
// and progress are not carried.
func TestStreamJSONEveryEvent(t *testing.T) {
	pl := &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a", Status: plan.Done}}}
	timing := orchestrator.Timing{Load: 1500 * time.Millisecond, FirstToken: 250 * time.Millisecond, PrefillTokens: 900,
		PrefillRate: 1234.56, DecodeRate: 45.04, CachedTokens: 100, CacheMiss: true, Reloaded: true}
	for _, c := range []struct {
		event orchestrator.Event
		want  string
	}{
		{orchestrator.TurnStarted{Turn: 1, Messages: 3, Model: "m", Loading: true, Reading: 10},
			`{"type":"turn_start","turn":1}`},
		{orchestrator.ThinkingDelta{Turn: 1, Text: "private"}, ``},
		{orchestrator.TextDelta{Turn: 1, Text: "a <b> & c"}, `{"type":"text","turn":1,"text":"a <b> & c"}`},
		{orchestrator.ToolStarted{Turn: 1, Index: 2, ID: "call_1", Name: "shell", Args: `{"command":"ls"}`, Subject: "ls"},
			`{"type":"tool_call","turn":1,"index":2,"id":"call_1","name":"shell","arguments":{"command":"ls"}}`},
		{orchestrator.ToolStarted{Turn: 1, Name: "shell", Args: `{"command":`},
			`{"type":"tool_call","turn":1,"index":0,"name":"shell","arguments":"{\"command\":"}`},
		{orchestrator.ToolProgress{Turn: 1, Index: 2, Text: "half"}, ``},
		{orchestrator.ToolFinished{Turn: 1, Index: 2, ID: "call_1", Name: "shell", Subject: "ls", Outcome: orchestrator.OutcomeFailed,
			Result: tools.Result{Summary: "exit 1", Content: "no such file"}, Duration: 1234567 * time.Microsecond},
			`{"type":"tool_result","turn":1,"index":2,"id":"call_1","name":"shell","outcome":"error","summary":"exit 1","content":"no such file","duration_ms":1234}`},
		{orchestrator.ToolFinished{Turn: 1, Name: "read_file", Outcome: orchestrator.OutcomeOK},
			`{"type":"tool_result","turn":1,"index":0,"name":"read_file","outcome":"ok","summary":"","content":"","duration_ms":0}`},
		{orchestrator.TurnFinished{Turn: 1, PromptTokens: 1000, CompletionTokens: 20, Duration: 3 * time.Second, Timing: timing},
			`{"type":"turn_end","turn":1,"prompt_tokens":1000,"completion_tokens":20,"duration_ms":3000,` +
				`"timing":{"load_ms":1500,"first_token_ms":250,"prefill_tokens":900,"prefill_tps":1234.6,"decode_tps":45,"cached_tokens":100,"cache_miss":true,"reloaded":true}}`},
		{orchestrator.TurnFinished{Turn: 2},
			`{"type":"turn_end","turn":2,"prompt_tokens":0,"completion_tokens":0,"duration_ms":0,` +
				`"timing":{"load_ms":0,"first_token_ms":0,"prefill_tokens":0,"prefill_tps":0,"decode_tps":0,"cached_tokens":0}}`},
		{orchestrator.ReplyRewritten{Turn: 1, Content: "rest"}, `{"type":"reply_rewritten","turn":1,"text":"rest"}`},
		{orchestrator.Warning{Text: "cut off"}, `{"type":"warning","message":"cut off"}`},
		{orchestrator.Compacted{Summarized: 12, Before: 26500, After: 4100},
			`{"type":"compacted","summarized":12,"tokens_before":26500,"tokens_after":4100}`},
		{orchestrator.ModeChanged{From: "ask", To: "build", Reason: "start_task"},
			`{"type":"mode_changed","from":"ask","to":"build","reason":"start_task"}`},
		{orchestrator.ModeChanged{From: "plan", To: "build", Reason: "plan approved", Plan: pl},
			`{"type":"mode_changed","from":"plan","to":"build","reason":"plan approved","plan":{"summary":"s","steps":[{"text":"a","status":"done"}]}}`},
		{orchestrator.PlanProposed{Turn: 2}, `{"type":"plan_proposed","turn":2,"plan":null}`},
		{orchestrator.PlanProposed{Turn: 2, Plan: pl},
			`{"type":"plan_proposed","turn":2,"plan":{"summary":"s","steps":[{"text":"a","status":"done"}]}}`},
		{orchestrator.ImagesAttached{From: "prompt", Images: []orchestrator.ImageInfo{{Name: "a.png", Bytes: 10, Width: 2, Height: 3, Tokens: 4}}},
			`{"type":"images","turn":0,"from":"prompt","images":[{"name":"a.png","bytes":10,"width":2,"height":3,"tokens":4}]}`},
		{orchestrator.ImagesAttached{Turn: 3, From: "read_file"}, `{"type":"images","turn":3,"from":"read_file","images":null}`},
		{orchestrator.PlanUpdated{Plan: pl}, `{"type":"plan_updated","plan":{"summary":"s","steps":[{"text":"a","status":"done"}]}}`},
		{orchestrator.PlanUpdated{}, `{"type":"plan_updated","plan":null}`},
		{orchestrator.ToolsChanged{Notes: []string{"fs is ready"}}, `{"type":"tools_changed","notes":["fs is ready"]}`},
		{orchestrator.ToolsChanged{}, `{"type":"tools_changed","notes":null}`},
	} {
		var out strings.Builder
		newEventEncoder(&out).event(c.event)
		want := c.want
		if want != "" {
			want += "\n"
		}
		if out.String() != want {
			t.Errorf("%T:\n got %s\nwant %s", c.event, out.String(), want)
		}
	}
}
