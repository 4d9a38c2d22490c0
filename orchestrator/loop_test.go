package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools"
)

func TestTwoTurnsSendBackCallsAndResults(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(
		ollamatest.Reply{Thinking: "The user wants a file.", Content: "Writing it.",
			ToolCalls: []ollamatest.ToolCall{{ID: "call_abc12345", Name: "write", Arguments: json.RawMessage(`{"path":"test.txt","content":"Hello"}`)}}},
		ollamatest.Reply{Content: "Created test.txt."},
	)
	res, err := e.run(t.Context(), "create test.txt")
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != StopDone || res.Text != "Created test.txt." || res.Turns != 2 || res.ToolCalls != 1 {
		t.Errorf("result = %+v", res)
	}
	if got := e.log.all(); !slices.Equal(got, []string{"write:start:test.txt", "write:end:test.txt"}) {
		t.Errorf("tool activity = %v", got)
	}
	reqs := e.srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if len(msgs) != 4 {
		t.Fatalf("second request has %d messages, want system, user, assistant, tool", len(msgs))
	}
	asst, tool := msgs[2], msgs[3]
	if asst.Role != "assistant" || asst.Content != "Writing it." || asst.Thinking != "The user wants a file." {
		t.Errorf("assistant message = %+v", asst)
	}
	if len(asst.ToolCalls) != 1 || asst.ToolCalls[0].ID != "call_abc12345" ||
		asst.ToolCalls[0].Function.Arguments.String() != `{"path":"test.txt","content":"Hello"}` {
		t.Errorf("assistant tool calls = %+v, want the call exactly as received", asst.ToolCalls)
	}
	if tool.Role != "tool" || tool.ToolName != "write" || tool.ToolCallID != "call_abc12345" || tool.Content != "write test.txt ok" {
		t.Errorf("tool message = %+v", tool)
	}
	if res.Usage.PromptTokens == 0 || res.Usage.CompletionTokens == 0 {
		t.Errorf("usage not counted: %+v", res.Usage)
	}
}

func TestCallsGatheredFromEveryChunk(t *testing.T) {
	for _, delivery := range []ollamatest.CallDelivery{ollamatest.CallsSeparate, ollamatest.CallsTogether, ollamatest.CallsOnDone} {
		t.Run(string(delivery), func(t *testing.T) {
			e := newEnv(t, nil)
			e.srv.Script(
				ollamatest.Reply{Calls: delivery, ToolCalls: []ollamatest.ToolCall{
					call("read", `{"path":"a"}`), call("read", `{"path":"b"}`), call("write", `{"path":"c"}`)}},
				ollamatest.Reply{Content: "done"},
			)
			if _, err := e.run(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			results := lastToolResults(t, e.srv)
			var got []string
			for _, m := range results {
				got = append(got, m.Content)
			}
			want := []string{"read a ok", "read b ok", "write c ok"}
			if !slices.Equal(got, want) {
				t.Errorf("tool results = %q, want %q in call order", got, want)
			}
		})
	}
}

func TestReadOnlyCallsRunConcurrentlyResultsInOrder(t *testing.T) {
	bStarted := make(chan struct{})
	slow := &probe{name: "slow", kind: tools.KindRead, fn: func(ctx context.Context, _ map[string]any) (tools.Result, error) {
		select { // finishes only once "fast" has started: a sequential loop would time out here
		case <-bStarted:
			return tools.Result{Content: "slow done"}, nil
		case <-time.After(5 * time.Second):
			return tools.Result{Content: "slow ran alone"}, nil
		}
	}}
	fast := &probe{name: "fast", kind: tools.KindRead, fn: func(context.Context, map[string]any) (tools.Result, error) {
		close(bStarted)
		return tools.Result{Content: "fast done"}, nil
	}}
	e := newEnv(t, nil, withTools(slow, fast))
	slow.log, fast.log = e.log, e.log
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("slow", `{}`), call("fast", `{}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := e.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	results := lastToolResults(t, e.srv)
	if len(results) != 2 || results[0].Content != "slow done" || results[1].Content != "fast done" {
		t.Errorf("results = %+v, want slow (run concurrently with fast) then fast, in call order", results)
	}
}

func TestCallsThatChangeThingsRunAloneInOrder(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			call("read", `{"path":"1"}`), call("write", `{"path":"2"}`), call("read", `{"path":"3"}`), call("write", `{"path":"4"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := e.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	want := []string{"read:start:1", "read:end:1", "write:start:2", "write:end:2", "read:start:3", "read:end:3", "write:start:4", "write:end:4"}
	if got := e.log.all(); !slices.Equal(got, want) {
		t.Errorf("activity = %v\nwant       %v", got, want)
	}
}

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name    string
		reply   ollamatest.Reply
		kind    error
		message string
	}{
		{"dropped without done", ollamatest.Reply{Content: "Partial answer that goes on", Drop: true, AfterChunks: 3},
			provider.ErrStreamBroken, "stopped before it was complete"},
		{"error line after output", ollamatest.Reply{Content: "Some text here", ErrorLine: "an error was encountered while running the model: CUDA error", AfterChunks: 2},
			provider.ErrStreamBroken, "CUDA error"},
		{"dropped before the calls on the done line", ollamatest.Reply{Content: "x", ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"p"}`)}, Calls: ollamatest.CallsOnDone, Drop: true, AfterChunks: 100},
			provider.ErrStreamBroken, "stopped before"},
		{"dropped after a call arrived", ollamatest.Reply{Content: "x", ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"p"}`), call("write", `{"path":"q"}`)}, Drop: true, AfterChunks: 2},
			provider.ErrStreamBroken, "stopped before"},
		{"500 before output", ollamatest.Reply{Status: 500, Error: "model runner has unexpectedly stopped"},
			provider.ErrServer, "Ollama answered 500: model runner has unexpectedly stopped"},
		{"context overflow", ollamatest.Reply{Status: 400, Error: "the input length exceeds the context length"},
			provider.ErrContextOverflow, "the prompt alone (about "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.srv.Script(tt.reply)
			res, err := e.run(t.Context(), "go")
			if !errors.Is(err, tt.kind) || !contains(err.Error(), tt.message) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.kind, tt.message)
			}
			if res.StopReason != StopError {
				t.Errorf("StopReason = %s, want error", res.StopReason)
			}
			if got := e.log.all(); len(got) != 0 {
				t.Errorf("tools ran from a broken turn: %v", got)
			}
			for _, m := range e.session.messages {
				if len(m.ToolCalls) > 0 {
					t.Errorf("history holds tool calls from a broken turn: %+v", m)
				}
			}
		})
	}
}

func TestBrokenTurnKeepsPartialTextAndHistoryStaysUsable(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(
		ollamatest.Reply{Content: "The first part of an answer", Drop: true, AfterChunks: 4},
		ollamatest.Reply{Content: "Second try works."},
	)
	if _, err := e.run(t.Context(), "first"); !errors.Is(err, provider.ErrStreamBroken) {
		t.Fatalf("err = %v, want a broken stream", err)
	}
	res, err := e.run(t.Context(), "again")
	if err != nil || res.Text != "Second try works." {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	msgs := e.srv.ChatRequests()[1].Messages
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if !slices.Equal(roles, []string{"system", "user", "assistant", "user"}) {
		t.Errorf("roles after a broken turn = %v", roles)
	}
	if msgs[2].Content == "" || !contains("The first part of an answer", msgs[2].Content) {
		t.Errorf("partial text = %q, want a prefix of the streamed text", msgs[2].Content)
	}
}

func TestLimits(t *testing.T) {
	loopForever := ollamatest.Reply{Func: func(api.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"x"}`), call("read", `{"path":"y"}`)}}
	}}
	t.Run("max turns", func(t *testing.T) {
		e := newEnv(t, nil, withLimits(func(l *config.Limits) { l.MaxTurns = 3 }))
		e.srv.Script(loopForever, loopForever, loopForever)
		res, err := e.run(t.Context(), "go")
		if err != nil || res.StopReason != StopMaxTurns || res.Turns != 3 || len(e.srv.ChatRequests()) != 3 {
			t.Errorf("res = %+v, err = %v, requests = %d; want max_turns after 3", res, err, len(e.srv.ChatRequests()))
		}
		if !res.StopReason.Limit() {
			t.Error("max_turns is not reported as a limit")
		}
	})
	t.Run("calls per turn", func(t *testing.T) {
		e := newEnv(t, nil, withLimits(func(l *config.Limits) { l.ToolCallsPerTurn = 2 }))
		e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			call("read", `{"path":"1"}`), call("read", `{"path":"2"}`), call("write", `{"path":"3"}`), call("read", `{"path":"4"}`)}},
			ollamatest.Reply{Content: "ok"})
		res, err := e.run(t.Context(), "go")
		if err != nil || res.StopReason != StopDone {
			t.Fatalf("res = %+v, err = %v", res, err)
		}
		// The third is answered; the fourth, dropped, is only counted.
		results := lastToolResults(t, e.srv)
		if len(results) != 3 || !contains(results[2].Content, "at most 2 tool calls run per turn") ||
			!contains(results[2].Content, "the call you made after this one was dropped unread") {
			t.Errorf("results = %+v", results)
		}
		if got := e.log.all(); len(got) != 4 || slices.Contains(got, "write:start:3") {
			t.Errorf("activity = %v, want only the first two calls run", got)
		}
	})
	t.Run("calls far past the per-turn limit", func(t *testing.T) {
		// One reply with 1,000 calls: eight run, the ninth is answered
		// with how many came after it, the rest are dropped unread, and
		// the user gets one line for them all.
		many := make([]ollamatest.ToolCall, 1000)
		for i := range many {
			many[i] = call("read", fmt.Sprintf(`{"path":"%d"}`, i))
		}
		e := newEnv(t, nil)
		e.srv.Script(ollamatest.Reply{ToolCalls: many}, ollamatest.Reply{Content: "ok"})
		if _, err := e.run(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		started, warnings := 0, 0
		for _, ev := range e.events {
			switch ev := ev.(type) {
			case ToolStarted:
				started++
			case Warning:
				warnings++
				if ev.Text != "the reply made 1,000 tool calls, more than the 8 a turn runs (limits.tool_calls_per_turn): the last 991 were dropped unread" {
					t.Errorf("warning %q", ev.Text)
				}
			}
		}
		results := lastToolResults(t, e.srv)
		if started != 9 || warnings != 1 || len(results) != 9 ||
			!contains(results[8].Content, "the 991 calls you made after this one were dropped unread") {
			t.Fatalf("%d calls started, %d warnings, %d results (the last %q)", started, warnings, len(results), results[len(results)-1].Content)
		}
		if got := e.log.all(); len(got) != 16 {
			t.Errorf("activity = %v, want the first eight calls run", got)
		}
	})
	t.Run("calls per prompt", func(t *testing.T) {
		e := newEnv(t, nil, withLimits(func(l *config.Limits) { l.ToolCallsPerPrompt = 3 }))
		e.srv.Script(loopForever, loopForever)
		res, err := e.run(t.Context(), "go")
		if err != nil || res.StopReason != StopToolBudget || res.ToolCalls != 3 || res.Turns != 2 {
			t.Fatalf("res = %+v, err = %v; want tool_budget after 3 calls in 2 turns", res, err)
		}
		last := e.session.messages[len(e.session.messages)-1]
		if last.Role != "tool" || !contains(last.Content, "budget of 3 tool calls") {
			t.Errorf("the call over budget was answered %+v", last)
		}
	})
	t.Run("wall clock", func(t *testing.T) {
		e := newEnv(t, nil, withLimits(func(l *config.Limits) { l.Timeout = config.Duration{Duration: 200 * time.Millisecond} }))
		e.srv.Script(ollamatest.Reply{Content: "thinking slowly about it", Hang: true, AfterChunks: 2})
		res, err := e.run(t.Context(), "go")
		if err != nil || res.StopReason != StopTimeout || !res.StopReason.Limit() {
			t.Fatalf("res = %+v, err = %v; want timeout", res, err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if err := e.srv.WaitCancelled(ctx, 1); err != nil {
			t.Errorf("the server never saw the request cancelled: %v", err)
		}
	})
}

func TestInterruptReachesStreamAndTools(t *testing.T) {
	t.Run("while streaming", func(t *testing.T) {
		e := newEnv(t, nil)
		e.srv.Script(ollamatest.Reply{Content: "a long answer in progress", Hang: true, AfterChunks: 3})
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			_ = e.srv.WaitHanging(ctx, 1)
			cancel()
		}()
		res, err := e.run(ctx, "go")
		if err != nil || res.StopReason != StopInterrupted {
			t.Fatalf("res = %+v, err = %v; want interrupted", res, err)
		}
		wait, stop := context.WithTimeout(t.Context(), 5*time.Second)
		defer stop()
		if err := e.srv.WaitCancelled(wait, 1); err != nil {
			t.Errorf("cancellation did not reach the HTTP stream: %v", err)
		}
	})
	t.Run("while a tool runs", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		blocking := &probe{name: "block", kind: tools.KindWrite, fn: func(ctx context.Context, _ map[string]any) (tools.Result, error) {
			cancel()
			<-ctx.Done()
			return tools.Result{Content: "partial output"}, ctx.Err()
		}}
		e := newEnv(t, nil, withTools(blocking, &probe{name: "read", kind: tools.KindRead}))
		blocking.log = e.log
		e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("block", `{"path":"x"}`), call("read", `{"path":"y"}`)}})
		res, err := e.run(ctx, "go")
		if err != nil || res.StopReason != StopInterrupted {
			t.Fatalf("res = %+v, err = %v; want interrupted", res, err)
		}
		msgs := e.session.messages
		tail := msgs[len(msgs)-2:]
		if tail[0].Role != "tool" || !contains(tail[0].Content, "interrupted") || !contains(tail[0].Content, "partial output") ||
			tail[1].Role != "tool" || !contains(tail[1].Content, "not run") {
			t.Errorf("every call must have a result after an interrupt; got %+v", tail)
		}
	})
}

func TestBadCallsAreAnsweredAndTheLoopGoesOn(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("delete_everything", `{}`), call("read", `{"invalid":true}`), call("read", `{"path":"ok"}`)}},
		ollamatest.Reply{Content: "recovered"},
	)
	res, err := e.run(t.Context(), "go")
	if err != nil || res.Text != "recovered" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	results := lastToolResults(t, e.srv)
	if !contains(results[0].Content, `unknown tool "delete_everything"; available tools: read, write`) {
		t.Errorf("unknown tool answered %q", results[0].Content)
	}
	if !contains(results[1].Content, `argument "invalid" is not allowed`) {
		t.Errorf("invalid arguments answered %q", results[1].Content)
	}
	if results[2].Content != "read ok ok" {
		t.Errorf("valid call answered %q", results[2].Content)
	}
	var finished []Outcome
	for _, ev := range e.events {
		if f, ok := ev.(ToolFinished); ok {
			finished = append(finished, f.Outcome)
		}
	}
	if !slices.Equal(finished, []Outcome{OutcomeFailed, OutcomeFailed, OutcomeOK}) {
		t.Errorf("outcomes = %v", finished)
	}
}

func TestDeniedCallsTellTheModel(t *testing.T) {
	e := newEnv(t, nil, withApprover(Rules{Tools: []string{"other"}, Denial: "running headless without --yes"}))
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"x"}`), call("read", `{"path":"y"}`)}},
		ollamatest.Reply{Content: "I could not write."},
	)
	res, err := e.run(t.Context(), "go")
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	results := lastToolResults(t, e.srv)
	if !contains(results[0].Content, "denied") || !contains(results[0].Content, "running headless without --yes") {
		t.Errorf("denied call answered %q", results[0].Content)
	}
	if got := e.log.all(); slices.Contains(got, "write:start:x") {
		t.Error("a denied call ran")
	}
	fin := eventsOf[ToolFinished](e.events)
	if len(fin) != 2 || !fin[0].NotApproved || fin[0].Outcome != OutcomeDenied || fin[1].NotApproved {
		t.Errorf("finished %+v, want the write not approved and the read run", fin)
	}
}

func TestCallsWithoutIDFromOlderServers(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(
		ollamatest.Reply{CallFormat: ollamatest.CallFormatLegacy, ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`), call("read", `{"path":"b"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := e.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	for _, m := range lastToolResults(t, e.srv) {
		if m.ToolName != "read" || m.ToolCallID != "" {
			t.Errorf("tool message = %+v, want tool_name and no invented tool_call_id", m)
		}
	}
	raw := e.srv.Requests()
	body := string(raw[len(raw)-1].Body)
	if contains(body, `"id":`) {
		t.Errorf("an id was invented for calls that had none: %s", body)
	}
}

func TestEventsPairUp(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(
		ollamatest.Reply{Thinking: "hmm", Content: "Let me look.", ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`), call("nope", `{}`)}},
		ollamatest.Reply{Content: "All done."},
	)
	if _, err := e.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	started, finished := map[string]bool{}, map[string]bool{}
	var text, thinking string
	var turns []TurnFinished
	for _, ev := range e.events {
		switch ev := ev.(type) {
		case ToolStarted:
			started[fmt.Sprint(ev.Turn, ev.Index)] = true
		case ToolFinished:
			finished[fmt.Sprint(ev.Turn, ev.Index)] = true
		case TextDelta:
			text += ev.Text
		case ThinkingDelta:
			thinking += ev.Text
		case TurnFinished:
			turns = append(turns, ev)
		}
	}
	if len(started) != 2 || fmt.Sprint(started) != fmt.Sprint(finished) {
		t.Errorf("started %v, finished %v: want the same two calls", started, finished)
	}
	if text != "Let me look.All done." || thinking != "hmm" {
		t.Errorf("text %q thinking %q", text, thinking)
	}
	if len(turns) != 2 || turns[0].ToolCalls != 2 || turns[0].CompletionTokens == 0 || turns[1].PromptTokens == 0 {
		t.Errorf("turn events = %+v", turns)
	}
}

// cancelAfterDone is a provider whose reply completes, tool calls
// included, and whose context is cancelled before Chat returns: the race
// between a finished stream and Ctrl+C.
type cancelAfterDone struct {
	provider.Provider
	cancel context.CancelFunc
}

func (c cancelAfterDone) Chat(ctx context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	_ = fn(provider.Chunk{ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "write", Arguments: json.RawMessage(`{"path":"x"}`)}}})
	_ = fn(provider.Chunk{Done: true, DoneReason: "stop"})
	c.cancel()
	return nil
}

func TestCancelAfterCompleteReplyKeepsHistoryValid(t *testing.T) {
	e := newEnv(t, nil)
	if _, err := e.session.Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	e.session.opts.Provider = cancelAfterDone{Provider: e.session.opts.Provider, cancel: cancel}
	res, err := e.run(ctx, "go")
	if err != nil || res.StopReason != StopInterrupted {
		t.Fatalf("res = %+v, err = %v; want interrupted", res, err)
	}
	if got := e.log.all(); len(got) != 0 {
		t.Errorf("a call ran after the user interrupted: %v", got)
	}
	msgs := e.session.messages
	for i, m := range msgs {
		if len(m.ToolCalls) > 0 && (i+1 >= len(msgs) || msgs[i+1].Role != "tool") {
			t.Errorf("message %d has tool calls with no results after it: %+v", i, msgs)
		}
	}
}

func TestEmptyRepliesKeepRolesAlternating(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{}, ollamatest.Reply{}, ollamatest.Reply{Content: "Now an answer."})
	res, err := e.run(t.Context(), "first")
	if err != nil || res.StopReason != StopEmpty {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range e.srv.ChatRequests()[2].Messages {
		roles = append(roles, m.Role)
	}
	if !slices.Equal(roles, []string{"system", "user", "assistant", "user", "assistant", "user"}) {
		t.Errorf("roles = %v, want user and assistant alternating", roles)
	}
}

// previewProbe is a write tool whose calls preview the file's version: the
// version its last run left, plus one.
type previewProbe struct {
	probe
	version  *int
	previews int // Preview calls
}

func (p *previewProbe) Prepare(raw json.RawMessage) (tools.Call, error) {
	c, err := p.probe.Prepare(raw)
	if err != nil {
		return nil, err
	}
	return &previewCall{probeCall: c.(*probeCall), version: p.version, p: p}, nil
}

type previewCall struct {
	*probeCall
	version *int
	p       *previewProbe
}

func (c *previewCall) Preview() (string, error) {
	c.p.previews++
	return fmt.Sprintf("-v%d\n+v%d", *c.version, *c.version+1), nil
}

func (c *previewCall) Run(ctx context.Context, caller tools.Caller) (tools.Result, error) {
	*c.version++
	return c.probeCall.Run(ctx, caller)
}

// recorder approves everything and records what it was asked.
type recorder struct{ asked []ApprovalRequest }

func (r *recorder) Approve(_ context.Context, req ApprovalRequest) (Decision, error) {
	r.asked = append(r.asked, req)
	return Decision{Allow: true}, nil
}

func TestPreviewIsTakenJustBeforeTheCallRuns(t *testing.T) {
	version := 0
	writer := &previewProbe{probe: probe{name: "write", kind: tools.KindWrite}, version: &version}
	rec := &recorder{}
	reader := &probe{name: "read", kind: tools.KindRead}
	store := newMemStore()
	e := newEnv(t, nil, withTools(writer, reader), withApprover(rec), func(o *Options) { o.Previews, o.Recorder = true, store })
	writer.log, reader.log = e.log, e.log
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"f"}`), call("read", `{"path":"f"}`), call("write", `{"path":"f"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	if _, err := e.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	var previews []string
	for _, ev := range e.events {
		if s, ok := ev.(ToolStarted); ok {
			previews = append(previews, s.Preview)
		}
	}
	want := []string{"-v0\n+v1", "", "-v1\n+v2"}
	if !slices.Equal(previews, want) {
		t.Errorf("previews = %q, want %q (the second write's diff must follow the first write)", previews, want)
	}
	if len(rec.asked) != 2 || rec.asked[0].Preview != want[0] || rec.asked[1].Preview != want[2] {
		t.Errorf("approval requests = %+v, want the two previews", rec.asked)
	}
	// Each result keeps the diff its card showed, for a resumed session.
	var kept []string
	for _, m := range store.history(e.session.id) {
		if m.Tool != nil {
			kept = append(kept, m.Tool.Diff)
		}
	}
	if !slices.Equal(kept, want) {
		t.Errorf("diffs kept with the results = %q, want %q", kept, want)
	}
}

// TestNoPreviewWithoutAUI: without Previews (the one-shot mode, where no
// one looks at a diff before the call is approved or denied), no write is
// previewed: a preview reads and diffs the file.
func TestNoPreviewWithoutAUI(t *testing.T) {
	version := 0
	writer := &previewProbe{probe: probe{name: "write", kind: tools.KindWrite}, version: &version}
	rec := &recorder{}
	e := newEnv(t, nil, withTools(writer), withApprover(rec))
	writer.log = e.log
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"f"}`)}}, ollamatest.Reply{Content: "ok"})
	if _, err := e.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if writer.previews != 0 || len(rec.asked) != 1 || rec.asked[0].Preview != "" {
		t.Errorf("%d previews computed, approval request %+v", writer.previews, rec.asked)
	}
}
