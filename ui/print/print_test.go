package print

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator"
	"lathe/orchestrator/plan"
	"lathe/tools"
)

func TestToolLine(t *testing.T) {
	tests := []struct {
		name string
		ev   orchestrator.ToolFinished
		want string
	}{
		{"ok", orchestrator.ToolFinished{Name: "write_file", Subject: "test.txt", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Summary: "created, 1 line"}, Duration: 2345 * time.Microsecond},
			"✓ write_file test.txt: created, 1 line (2ms)"},
		{"failed", orchestrator.ToolFinished{Name: "shell", Subject: "go test ./...", Outcome: orchestrator.OutcomeFailed,
			Result: tools.Result{Summary: "exit 1"}, Duration: 1540 * time.Millisecond},
			"✗ shell go test ./...: exit 1 (1.5s)"},
		{"denied", orchestrator.ToolFinished{Name: "shell", Subject: "rm -rf build", Outcome: orchestrator.OutcomeDenied,
			Result: tools.Result{Summary: "denied"}},
			"⊘ shell rm -rf build: denied"},
		{"invalid arguments, no subject", orchestrator.ToolFinished{Name: "read_file", Outcome: orchestrator.OutcomeFailed,
			Result: tools.Result{Summary: "invalid arguments"}},
			"✗ read_file: invalid arguments"},
		{"failed with a cause", orchestrator.ToolFinished{Name: "write_file", Subject: "new.txt", Outcome: orchestrator.OutcomeFailed,
			Result: tools.Result{Summary: "failed", Content: "error: ro/new.txt: permission denied", IsError: true}, Duration: 281 * time.Microsecond},
			"✗ write_file new.txt: failed: ro/new.txt: permission denied (281µs)"}, // F9
		{"long multi-line command", orchestrator.ToolFinished{Name: "shell", Subject: "echo one\n  echo two " + strings.Repeat("x", 100),
			Outcome: orchestrator.OutcomeInterrupted},
			"⊘ shell echo one echo two " + strings.Repeat("x", 61) + "…: interrupted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newMarks(false).toolLine(tt.ev); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	if colored := newMarks(true).toolLine(tests[0].ev); !strings.Contains(colored, "\x1b[") {
		t.Errorf("color requested but none in %q", colored)
	}
}

func TestFinishText(t *testing.T) {
	tests := []struct {
		name string
		res  orchestrator.Result
		want string
	}{
		{"answer", orchestrator.Result{StopReason: orchestrator.StopDone, Text: "\n\nDone: created test.txt.\n\n"}, "Done: created test.txt.\n"},
		{"limit stop prints no answer", orchestrator.Result{StopReason: orchestrator.StopMaxTurns, Text: "Still looking."}, ""},
		{"interrupted prints no answer", orchestrator.Result{StopReason: orchestrator.StopInterrupted, Text: "Half an ans"}, ""},
		{"a plan for review prints the plan", orchestrator.Result{StopReason: orchestrator.StopPlanned, Text: "Here it is.",
			Plan: &plan.Plan{Summary: " Fix lex. ", Steps: []plan.Step{{Text: "edit lex.go", Status: plan.Pending},
				{Text: "run go test", Status: plan.Pending}}}},
			"Fix lex.\n\n1. edit lex.go\n2. run go test\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			if err := New(FormatText, &out, &errOut, Options{}).Finish(tt.res, nil); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("stdout = %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestFinishJSON(t *testing.T) {
	var out strings.Builder
	res := orchestrator.Result{Text: "a <b> & c", StopReason: orchestrator.StopError, Turns: 1, Model: "m", SessionID: "s",
		Usage: orchestrator.Usage{PromptTokens: 10, CompletionTokens: 2}, Duration: 1500 * time.Millisecond,
		Recoveries: orchestrator.Recoveries{TextCalls: 2, ThinkLeaks: 1},
		Timing: orchestrator.RunTiming{Load: 7250 * time.Millisecond, FirstToken: 8100 * time.Millisecond, PrefillTokens: 1200,
			PrefillRate: 412.34, DecodeRate: 31.26, CachedTokens: 3400},
		Mode: "build", Plan: &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a", Status: plan.Done}}}}
	if err := New(FormatJSON, &out, &strings.Builder{}, Options{}).Finish(res, errors.New("the stream broke")); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"result","result":"a <b> & c","stop_reason":"error","turns":1,"tool_calls":0,"denied":0,` +
		`"usage":{"prompt_tokens":10,"completion_tokens":2},"duration_ms":1500,"model":"m","session_id":"s",` +
		`"recoveries":{"text_calls":2,"tool_names":0,"argument_repairs":0,"think_leaks":1,"repetition_warnings":0,"empty_nudges":0,"announced_nudges":0},` +
		`"timing":{"load_ms":7250,"first_token_ms":8100,"prefill_tokens":1200,"prefill_tps":412.3,"decode_tps":31.3,"cached_tokens":3400},` +
		`"mode":"build","plan":{"summary":"s","steps":[{"text":"a","status":"done"}]},"error":"the stream broke"}` + "\n"
	if out.String() != want {
		t.Errorf("got  %s\nwant %s", out.String(), want)
	}
}

func TestStreamJSONEvents(t *testing.T) {
	var out, errOut strings.Builder
	h := New(FormatStreamJSON, &out, &errOut, Options{})
	h.Event(orchestrator.TurnStarted{Turn: 1, Messages: 2})
	h.Event(orchestrator.ThinkingDelta{Turn: 1, Text: "private"})
	h.Event(orchestrator.TextDelta{Turn: 1, Text: "Hi"})
	h.Event(orchestrator.ToolStarted{Turn: 1, Index: 0, ID: "call_1", Name: "read_file", Args: `{"path":"a"}`})
	h.Event(orchestrator.ToolStarted{Turn: 1, Index: 1, Name: "read_file", Args: `not json`})
	h.Event(orchestrator.Warning{Text: "cut off"})
	pl := &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a", Status: plan.Pending},
		{Text: "b", Status: plan.Pending}, {Text: "c", Status: plan.Pending}}}
	h.Event(orchestrator.PlanProposed{Turn: 2, Plan: pl})
	h.Event(orchestrator.ModeChanged{From: "plan", To: "build", Reason: "plan approved", Plan: pl})
	pl.Steps[0].Status, pl.Steps[1].Status = plan.Done, plan.InProgress
	h.Event(orchestrator.PlanUpdated{Plan: pl}) // the update_plan call's line says it
	want := strings.Join([]string{
		`{"type":"turn_start","turn":1}`,
		`{"type":"text","turn":1,"text":"Hi"}`,
		`{"type":"tool_call","turn":1,"index":0,"id":"call_1","name":"read_file","arguments":{"path":"a"}}`,
		`{"type":"tool_call","turn":1,"index":1,"name":"read_file","arguments":"not json"}`,
		`{"type":"warning","message":"cut off"}`,
		`{"type":"plan_proposed","turn":2,"plan":{"summary":"s","steps":[{"text":"a","status":"pending"},{"text":"b","status":"pending"},{"text":"c","status":"pending"}]}}`,
		`{"type":"mode_changed","from":"plan","to":"build","reason":"plan approved","plan":{"summary":"s","steps":[{"text":"a","status":"pending"},{"text":"b","status":"pending"},{"text":"c","status":"pending"}]}}`,
		`{"type":"plan_updated","plan":{"summary":"s","steps":[{"text":"a","status":"done"},{"text":"b","status":"in_progress"},{"text":"c","status":"pending"}]}}`,
	}, "\n") + "\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if want := "lathe: warning: cut off\nlathe: plan proposed: s (3 steps)\nlathe: plan mode → build mode (plan approved)\n"; errOut.String() != want {
		t.Errorf("stderr = %q", errOut.String())
	}
}

func TestParseFormat(t *testing.T) {
	for _, ok := range []string{"text", "json", "stream-json"} {
		if f, err := ParseFormat(ok); err != nil || string(f) != ok {
			t.Errorf("ParseFormat(%q) = %q, %v", ok, f, err)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("ParseFormat accepted yaml")
	}
}

func TestPlanTextShowsTheChecklistOnceStarted(t *testing.T) {
	p := &plan.Plan{Summary: "Fix lex", Steps: []plan.Step{
		{Text: "edit lex.go", Status: plan.Done}, {Text: "docs", Status: plan.Skipped},
		{Text: "test", Status: plan.InProgress}, {Text: "commit", Status: plan.Pending}}}
	want := "Fix lex\n\n[x] 1. edit lex.go\n[-] 2. docs\n[~] 3. test\n[ ] 4. commit\n"
	if got := PlanText(p); got != want {
		t.Errorf("PlanText = %q, want %q", got, want)
	}
	if got := p.Progress(); got != "2/4 done, step 3 in progress" {
		t.Errorf("progress = %q", got)
	}
	if PlanText(nil) != "" {
		t.Error("no plan is not empty")
	}
}

// TestCompactionIsToldOnStderr: the user hears of a compaction in a
// one-shot run, on stderr, never stdout.
func TestCompactionIsToldOnStderr(t *testing.T) {
	for _, f := range []Format{FormatText, FormatJSON} {
		var out, errOut strings.Builder
		New(f, &out, &errOut, Options{}).Event(orchestrator.Compacted{Summarized: 12, Before: 26500, After: 4100})
		want := "lathe: compacted the conversation: 12 older messages summarized for the model (26500 → 4100 tokens)\n"
		if errOut.String() != want || out.Len() != 0 {
			t.Errorf("%s: stderr %q, stdout %q", f, errOut.String(), out.String())
		}
	}
}

// TestStderrCountsAgree: one of a thing is not written as several.
func TestStderrCountsAgree(t *testing.T) {
	var out, errOut strings.Builder
	p := New(FormatText, &out, &errOut, Options{})
	p.Event(orchestrator.Compacted{Summarized: 1, Before: 9000, After: 8000})
	p.Event(orchestrator.PlanProposed{Plan: &plan.Plan{Summary: "Fix it", Steps: []plan.Step{{Text: "edit"}}}})
	want := "lathe: compacted the conversation: 1 older message summarized for the model (9000 → 8000 tokens)\n" +
		"lathe: plan proposed: Fix it (1 step)\n"
	if errOut.String() != want {
		t.Errorf("stderr = %q, want %q", errOut.String(), want)
	}
}

// TestAnswerOnATerminal: a model's answer printed to a terminal loses the
// escape sequences it may hold (OSC 52 sets the clipboard, ESC[2J clears
// the screen); to a pipe it is printed as it is (F12). Stderr lines escape
// them always.
func TestAnswerOnATerminal(t *testing.T) {
	answer := "final \x1b]52;c;cHduZWQ=\a\x1b[2J answer\r\n"
	for _, terminal := range []bool{true, false} {
		var out, errOut strings.Builder
		p := New(FormatText, &out, &errOut, Options{Terminal: terminal})
		p.Event(orchestrator.ToolFinished{Name: "shell", Subject: "rm -rf ~/x\x1b[2K\x1b[1G\x1b[8m hidden", Outcome: orchestrator.OutcomeDenied})
		if err := p.Finish(orchestrator.Result{StopReason: orchestrator.StopDone, Text: answer}, nil); err != nil {
			t.Fatal(err)
		}
		want := "final  answer\n"
		if !terminal {
			want = strings.TrimSpace(answer) + "\n"
		}
		if out.String() != want {
			t.Errorf("terminal %v: stdout %q, want %q", terminal, out.String(), want)
		}
		if strings.Contains(errOut.String(), "\x1b") || !strings.Contains(errOut.String(), `\x1b[8m hidden`) {
			t.Errorf("stderr %q, want the escape sequence shown escaped", errOut.String())
		}
	}
}

// TestDeniedCalls: a call the rules did not allow is counted for the JSON
// result, and the first one is followed, once, by what to do about it;
// a mode's refusal is neither.
func TestDeniedCalls(t *testing.T) {
	var out, errOut strings.Builder
	p := New(FormatJSON, &out, &errOut, Options{})
	denied := orchestrator.ToolFinished{Name: "write_file", Subject: "test.txt", Outcome: orchestrator.OutcomeDenied,
		Result: tools.Result{Summary: "denied"}, NotApproved: true}
	p.Event(orchestrator.ToolFinished{Name: "write_file", Subject: "a.txt", Outcome: orchestrator.OutcomeDenied,
		Result: tools.Result{Summary: "not in plan mode"}})
	p.Event(denied)
	denied.Subject = "b.txt"
	p.Event(denied)
	if err := p.Finish(orchestrator.Result{StopReason: orchestrator.StopDone, Text: "Done."}, nil); err != nil {
		t.Fatal(err)
	}
	want := "⊘ write_file a.txt: not in plan mode\n" +
		"⊘ write_file test.txt: denied\n" + deniedHint + "\n" +
		"⊘ write_file b.txt: denied\n"
	if errOut.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut.String(), want)
	}
	if !strings.Contains(out.String(), `"stop_reason":"done","turns":0,"tool_calls":0,"denied":2,`) {
		t.Errorf("stdout %s, want denied 2", out.String())
	}
}

// TestSpillAdvice: the advice to set num_ctx goes with a spill only when
// a window that fits the GPU was found.
func TestSpillAdvice(t *testing.T) {
	for _, c := range []struct {
		fit  int
		want string
	}{
		{17408, "lathe: warning: m runs partly on the CPU: 8 B of its 10 B are in GPU memory, with num_ctx 32,768; num_ctx 17,408 would fit it all on the GPU: set options.num_ctx in your config to use it\n"},
		{0, "lathe: warning: m runs partly on the CPU: 8 B of its 10 B are in GPU memory, with num_ctx 32,768\n"},
	} {
		var out, errOut strings.Builder
		New(FormatText, &out, &errOut, Options{}).Event(orchestrator.Spill{Model: "m", Size: 10, VRAM: 8, NumCtx: 32768, FitNumCtx: c.fit})
		if errOut.String() != c.want {
			t.Errorf("stderr %q\nwant   %q", errOut.String(), c.want)
		}
	}
}

// TestInterruptedOnATerminalKeepsWhatArrived: on a terminal, a run
// interrupted while the answer streamed prints what arrived of it, as
// the UI keeps it; to a pipe, stdout stays the answer only, and there is
// none (F10).
func TestInterruptedOnATerminalKeepsWhatArrived(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var out, errOut strings.Builder
		h := New(FormatText, &out, &errOut, Options{Terminal: terminal})
		h.Event(orchestrator.TurnStarted{Turn: 1})
		h.Event(orchestrator.TextDelta{Turn: 1, Text: "I'll look."})
		h.Event(orchestrator.TurnStarted{Turn: 2})
		h.Event(orchestrator.TextDelta{Turn: 2, Text: "slow answer begins"})
		h.Event(orchestrator.TextDelta{Turn: 2, Text: " and then"})
		if err := h.Finish(orchestrator.Result{StopReason: orchestrator.StopInterrupted}, context.Canceled); err != nil {
			t.Fatal(err)
		}
		want := ""
		if terminal {
			want = "slow answer begins and then\n"
		}
		if out.String() != want {
			t.Errorf("terminal %v: stdout %q, want %q", terminal, out.String(), want)
		}
	}
}
