package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/prompts"
	"lathe/tools"
)

func TestToolCallsWrittenAsText(t *testing.T) {
	tests := []struct {
		name    string
		content string
		rest    string
	}{
		{"json in a fence", "I'll read it first.\n\n```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"main.go\"}}\n```", "I'll read it first."},
		{"bare json list", `[{"name": "read", "arguments": {"path": "main.go"}}]`, ""},
		{"tool_call tags", "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call>", ""},
		{"qwen3-coder xml", "<tool_call>\n<function=read>\n<parameter=path>\nmain.go\n</parameter>\n</function>\n</tool_call>", ""},
		{"mistral list", `[TOOL_CALLS][{"name": "read", "arguments": {"path": "main.go"}}]`, ""},
		{"mistral args", `[TOOL_CALLS]read[ARGS]{"path": "main.go"}`, ""},
		{"loose name and string arguments", `{"name": "functions.Read", "arguments": "{\"path\": \"main.go\"}"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.srv.Script(ollamatest.Reply{Content: tt.content}, ollamatest.Reply{Content: "main.go holds the entry point."})
			res, err := e.run(t.Context(), "what is in main.go?")
			if err != nil || res.StopReason != StopDone || res.Text != "main.go holds the entry point." {
				t.Fatalf("res = %+v, err = %v", res, err)
			}
			if got := e.log.all(); len(got) != 2 || got[0] != "read:start:main.go" {
				t.Errorf("tool activity = %v, want read main.go", got)
			}
			if res.Recoveries.TextCalls != 1 {
				t.Errorf("recoveries = %+v, want one text call", res.Recoveries)
			}
			asst := e.srv.ChatRequests()[1].Messages[2]
			if asst.Content != tt.rest || len(asst.ToolCalls) != 1 || asst.ToolCalls[0].Function.Name != "read" ||
				asst.ToolCalls[0].Function.Arguments.String() != `{"path":"main.go"}` {
				t.Errorf("history holds %+v, want the call in proper form and the text %q", asst, tt.rest)
			}
			var rewritten []ReplyRewritten
			for _, ev := range e.events {
				if r, ok := ev.(ReplyRewritten); ok {
					rewritten = append(rewritten, r)
				}
			}
			if len(rewritten) != 1 || rewritten[0].Content != tt.rest {
				t.Errorf("rewrite events = %+v", rewritten)
			}
		})
	}
}

func TestTextThatOnlyMentionsToolsIsAnAnswer(t *testing.T) {
	for _, content := range []string{
		"Use read to open main.go, then write to save it.",
		`{"name": "search_web", "arguments": {"q": "go"}}`,
		"```json\n{\"name\": \"my-app\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"jest\"}}\n```",
	} {
		e := newEnv(t, nil)
		e.srv.Script(ollamatest.Reply{Content: content})
		res, err := e.run(t.Context(), "hi")
		if err != nil || res.Text != content || res.Turns != 1 || len(e.log.all()) != 0 || res.Recoveries.Total() != 0 {
			t.Errorf("%q: res = %+v, err = %v, tools = %v", content, res, err, e.log.all())
		}
	}
}

func TestLooseNativeToolNames(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("functions.READ", `{"path":"a"}`)}}, ollamatest.Reply{Content: "ok"})
	res, err := e.run(t.Context(), "go")
	if err != nil || res.Recoveries.ToolNames != 1 || len(e.log.all()) != 2 {
		t.Fatalf("res = %+v, err = %v, tools = %v", res, err, e.log.all())
	}
	if name := e.srv.ChatRequests()[1].Messages[2].ToolCalls[0].Function.Name; name != "read" {
		t.Errorf("history keeps the name %q, want read", name)
	}
}

func TestThinkingLeftInContent(t *testing.T) {
	e := newEnv(t, nil)
	// The fake streams content in small pieces, so the tags are cut across chunks.
	e.srv.Script(ollamatest.Reply{Content: "<think>\nThe user wants a greeting.\n</think>\n\nHello there!"})
	res, err := e.run(t.Context(), "greet me")
	if err != nil || res.Text != "Hello there!" || res.Recoveries.ThinkLeaks != 1 {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	var streamed, thought string
	for _, ev := range e.events {
		switch ev := ev.(type) {
		case TextDelta:
			streamed += ev.Text
		case ThinkingDelta:
			thought += ev.Text
		}
	}
	if strings.Contains(streamed, "think") || strings.Contains(streamed, "greeting") {
		t.Errorf("thinking was streamed as the answer: %q", streamed)
	}
	if !strings.Contains(thought, "The user wants a greeting.") {
		t.Errorf("thinking events: %q", thought)
	}
	msgs := e.session.messages
	if last := msgs[len(msgs)-1]; last.Content != "Hello there!" || !strings.Contains(last.Thinking, "wants a greeting") {
		t.Errorf("history: %+v", last)
	}
}

func TestRepetitionGuard(t *testing.T) {
	again := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"./main.go"}`)}}
	spaced := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"main.go "}`)}}
	same := &probe{name: "read", kind: tools.KindRead, fn: func(context.Context, map[string]any) (tools.Result, error) {
		return tools.Result{Content: "package main"}, nil
	}}
	e := newEnv(t, nil, withTools(same))
	same.log = e.log
	e.srv.Script(again, spaced, again, again, again)
	res, err := e.run(t.Context(), "go")
	if err != nil || res.StopReason != StopRepetition || res.Turns != 5 || !res.StopReason.Limit() {
		t.Fatalf("res = %+v, err = %v; want a repetition stop after 5 turns", res, err)
	}
	if res.Repeated != "read ./main.go" || res.Recoveries.RepetitionWarnings != 3 {
		t.Errorf("repeated %q, warnings %d", res.Repeated, res.Recoveries.RepetitionWarnings)
	}
	reqs := e.srv.ChatRequests()
	if third := lastToolResults(t, e.srv)[0].Content; !strings.Contains(third, "this is the 4th time you made this exact call") {
		t.Errorf("the 4th result lacks the note: %q", third)
	}
	if second := toolMessages(reqs[2])[1].Content; strings.Contains(second, "note:") {
		t.Errorf("the 2nd call was already warned: %q", second)
	}
}

func TestPollingIsNotRepetition(t *testing.T) {
	n := 0
	poll := &probe{name: "read", kind: tools.KindRead, fn: func(context.Context, map[string]any) (tools.Result, error) {
		n++
		return tools.Result{Content: fmt.Sprintf("build running, %d%% done", n*15)}, nil
	}}
	e := newEnv(t, nil, withTools(poll))
	poll.log = e.log
	again := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"build.log"}`)}}
	e.srv.Script(again, again, again, again, again, ollamatest.Reply{Content: "The build finished."})
	res, err := e.run(t.Context(), "wait for the build")
	if err != nil || res.StopReason != StopDone || res.Recoveries.RepetitionWarnings != 0 {
		t.Errorf("res = %+v, err = %v", res, err)
	}
}

func TestEmptyReplies(t *testing.T) {
	t.Run("nudged once, then answers", func(t *testing.T) {
		e := newEnv(t, nil)
		e.srv.Script(ollamatest.Reply{Thinking: "hmm"}, ollamatest.Reply{Content: "Here it is."})
		res, err := e.run(t.Context(), "go")
		if err != nil || res.StopReason != StopDone || res.Text != "Here it is." || res.Recoveries.EmptyNudges != 1 {
			t.Fatalf("res = %+v, err = %v", res, err)
		}
		msgs := e.srv.ChatRequests()[1].Messages
		if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != prompts.Nudge() || msgs[len(msgs)-2].Role != "assistant" {
			t.Errorf("the nudge is not the last message: %+v", msgs)
		}
	})
	t.Run("empty twice stops", func(t *testing.T) {
		e := newEnv(t, nil)
		e.srv.Script(ollamatest.Reply{}, ollamatest.Reply{Content: "   \n"})
		res, err := e.run(t.Context(), "go")
		if err != nil || res.StopReason != StopEmpty || res.Turns != 2 || res.StopReason.Limit() {
			t.Errorf("res = %+v, err = %v; want empty_response after 2 turns", res, err)
		}
	})
}

func TestRepairsAreCounted(t *testing.T) {
	fixer := &probe{name: "read", kind: tools.KindRead, fn: func(context.Context, map[string]any) (tools.Result, error) {
		return tools.Result{Content: "ok", Repairs: []string{`"limit" sent as a string`, "arguments sent as a JSON string"}}, nil
	}}
	e := newEnv(t, nil, withTools(fixer))
	fixer.log = e.log
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`), call("read", `{"path":"b"}`)}},
		ollamatest.Reply{Content: "done"})
	res, err := e.run(t.Context(), "go")
	if err != nil || res.Recoveries.ArgumentRepairs != 4 {
		t.Errorf("recoveries = %+v, err = %v; want 4 argument repairs", res.Recoveries, err)
	}
}
