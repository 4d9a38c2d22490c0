package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			if err := NewHeadless(FormatText, &out, &errOut, false).Finish(tt.res, nil); err != nil {
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
		Recoveries: orchestrator.Recoveries{TextCalls: 2, ThinkLeaks: 1}}
	if err := NewHeadless(FormatJSON, &out, &strings.Builder{}, false).Finish(res, errors.New("the stream broke")); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"result","result":"a <b> & c","stop_reason":"error","turns":1,"tool_calls":0,` +
		`"usage":{"prompt_tokens":10,"completion_tokens":2},"duration_ms":1500,"model":"m","session_id":"s",` +
		`"recoveries":{"text_calls":2,"tool_names":0,"argument_repairs":0,"think_leaks":1,"repetition_warnings":0,"empty_nudges":0},` +
		`"error":"the stream broke"}` + "\n"
	if out.String() != want {
		t.Errorf("got  %s\nwant %s", out.String(), want)
	}
}

func TestStreamJSONEvents(t *testing.T) {
	var out, errOut strings.Builder
	h := NewHeadless(FormatStreamJSON, &out, &errOut, false)
	h.Event(orchestrator.TurnStarted{Turn: 1, Messages: 2})
	h.Event(orchestrator.ThinkingDelta{Turn: 1, Text: "private"})
	h.Event(orchestrator.TextDelta{Turn: 1, Text: "Hi"})
	h.Event(orchestrator.ToolStarted{Turn: 1, Index: 0, ID: "call_1", Name: "read_file", Args: `{"path":"a"}`})
	h.Event(orchestrator.ToolStarted{Turn: 1, Index: 1, Name: "read_file", Args: `not json`})
	h.Event(orchestrator.Warning{Text: "cut off"})
	want := strings.Join([]string{
		`{"type":"turn_start","turn":1}`,
		`{"type":"text","turn":1,"text":"Hi"}`,
		`{"type":"tool_call","turn":1,"index":0,"id":"call_1","name":"read_file","arguments":{"path":"a"}}`,
		`{"type":"tool_call","turn":1,"index":1,"name":"read_file","arguments":"not json"}`,
		`{"type":"warning","message":"cut off"}`,
	}, "\n") + "\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if errOut.String() != "lathe: warning: cut off\n" {
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
