package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
)

func withStore(st Recorder) envOption {
	return func(o *Options) { o.Recorder, o.Dir = st, "/home/dev/proj" }
}

func TestMessagesAndRunsAreSaved(t *testing.T) {
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(
		ollamatest.Reply{Content: "Reading.", ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`), call("write", `{"path":"b"}`)}},
		ollamatest.Reply{Content: "Done."},
	)
	res, err := e.run(t.Context(), "change b\nwith some detail on a second line")
	if err != nil {
		t.Fatal(err)
	}
	rec := st.sessions[e.session.id]
	if rec == nil || rec.Title != "change b" || rec.Dir != "/home/dev/proj" || rec.Model != "qwen3:8b" {
		t.Fatalf("session record = %+v", rec)
	}
	// What is stored is what the next request would send, after the system prompt.
	stored := st.history(e.session.id)
	want := e.session.messages[1:]
	if len(stored) != len(want) {
		t.Fatalf("%d messages stored, history has %d", len(stored), len(want))
	}
	for i, m := range stored {
		got, _ := json.Marshal(m.Message)
		exp, _ := json.Marshal(want[i])
		if m.Seq != i || string(got) != string(exp) {
			t.Errorf("message %d: stored %s (seq %d), history %s", i, got, m.Seq, exp)
		}
	}
	if meta := stored[3].Tool; meta == nil || meta.Subject != "b" || meta.Outcome != string(OutcomeOK) {
		t.Errorf("tool meta = %+v", meta)
	}
	if len(st.runs) != 1 || st.runs[0].end == nil || st.runs[0].end.StopReason != string(StopDone) || st.runs[0].end.Turns != 2 ||
		st.runs[0].end.PromptTokens != res.Usage.PromptTokens || st.runs[0].end.CompletionTokens != res.Usage.CompletionTokens || st.runs[0].Options["num_ctx"] != 32768 {
		t.Errorf("run = %+v, end = %+v", st.runs[0], st.runs[0].end)
	}
}

func TestStoreFailureIsToldAndTheRunGoesOn(t *testing.T) {
	st := newMemStore()
	st.fail = errors.New("disk full")
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(ollamatest.Reply{Content: "ok"})
	res, err := e.run(t.Context(), "hi")
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	var warnings []string
	for _, ev := range e.events {
		if w, ok := ev.(Warning); ok {
			warnings = append(warnings, w.Text)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "disk full") {
		t.Errorf("warnings = %q, want one about the store", warnings)
	}
}

// TestStoreFailingUnderConcurrentCallsIsToldOnce: read-only calls finish
// together, each saving its result; when the store fails under them, the
// user is told once (and, under -race, without a data race).
func TestStoreFailingUnderConcurrentCallsIsToldOnce(t *testing.T) {
	st := newMemStore()
	st.failTools = errors.New("disk full")
	e := newEnv(t, nil, withStore(st))
	var calls []ollamatest.ToolCall
	for _, p := range []string{"a", "b", "c", "d"} {
		calls = append(calls, call("read", `{"path":"`+p+`"}`))
	}
	e.srv.Script(ollamatest.Reply{ToolCalls: calls}, ollamatest.Reply{Content: "ok"})
	if _, err := e.run(t.Context(), "read them"); err != nil {
		t.Fatal(err)
	}
	if warn := eventsOf[Warning](e.events); len(warn) != 1 || !strings.Contains(warn[0].Text, "disk full") {
		t.Errorf("warnings %+v, want one about the store", warn)
	}
	if got := st.history(e.session.id); len(got) != 2 {
		t.Errorf("%d messages saved, want the prompt and the reply before the failure", len(got))
	}
}

func TestRestoreMendsWhatADeadProcessLeft(t *testing.T) {
	args := json.RawMessage(`{"path":"a"}`)
	calls := []provider.ToolCall{
		{ID: "call_1", Name: "read", Arguments: args},
		{ID: "call_2", Name: "read", Arguments: json.RawMessage(`{"path":"b"}`)},
		{ID: "call_3", Name: "write", Arguments: json.RawMessage(`{"path":"c"}`)},
	}
	saved := session.Saved{Record: session.Record{ID: "abcdef0123456789", Title: "t"}, Messages: []session.Message{
		{Seq: 0, Message: provider.Message{Role: "user", Content: "first"}},
		{Seq: 1, Message: provider.Message{Role: "assistant", ToolCalls: calls}},
		{Seq: 3, Message: provider.Message{Role: "tool", Content: "second result", ToolName: "read", ToolCallID: "call_2"},
			Tool: &session.ToolMeta{Subject: "b", Outcome: "ok", Summary: "1 line"}},
	}}
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	st.sessions[saved.ID] = &saved.Record
	st.messages[saved.ID] = map[int]session.Message{}
	if err := e.session.ResumeFrom(saved); err != nil {
		t.Fatal(err)
	}
	prepared, err := e.session.Prepare(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	h := prepared.History
	if h == nil || h.ID != saved.ID || len(h.Messages) != 5 {
		t.Fatalf("history = %+v", h)
	}
	// Every result has its meta: the saved one, or "interrupted" with the
	// subject its tool works out.
	for i, want := range []string{"a interrupted", "b ok", "c interrupted"} {
		meta := h.Messages[2+i].Tool
		if meta == nil || meta.Subject+" "+meta.Outcome != want {
			t.Errorf("result %d: meta %+v, want %s", i, meta, want)
		}
	}
	msgs := e.session.messages[1:]
	var shape []string
	for _, m := range msgs {
		shape = append(shape, m.Role+":"+m.ToolCallID)
	}
	want := "user: assistant: tool:call_1 tool:call_2 tool:call_3"
	if strings.Join(shape, " ") != want || msgs[2].Content != prompts.InterruptedByExit() || msgs[3].Content != "second result" {
		t.Fatalf("restored history %v, want %s with the missing results filled", shape, want)
	}
	if got := st.history(saved.ID); len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 4 {
		t.Errorf("mended messages saved: %+v", got)
	}
	e.srv.Script(ollamatest.Reply{Content: "Continuing."})
	if _, err := e.run(t.Context(), "go on"); err != nil {
		t.Fatal(err)
	}
	if req := e.srv.ChatRequests()[0]; len(req.Messages) != 7 || req.Messages[6].Content != "go on" {
		t.Errorf("the request after restoring has %d messages", len(req.Messages))
	}
	if e.session.id != saved.ID {
		t.Errorf("the restored session got a new id")
	}
}

// bigRead is a read tool whose every result is about size bytes.
func bigRead(size int) *probe {
	return &probe{name: "read", kind: tools.KindRead, fn: func(_ context.Context, args map[string]any) (tools.Result, error) {
		path, _ := args["path"].(string)
		return tools.Result{Content: path + ": " + strings.Repeat("data ", size/5)}, nil
	}}
}

func TestLargeResultsAreCutToTheirShare(t *testing.T) {
	reader := bigRead(100 << 10)
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", ContextLength: 4096})},
		withTools(reader))
	reader.log = e.log
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"big.log"}`)}}, ollamatest.Reply{Content: "ok"})
	if _, err := e.run(t.Context(), "read it"); err != nil {
		t.Fatal(err)
	}
	got := lastToolResults(t, e.srv)[0].Content
	if len(got) > 4096+400 || !strings.Contains(got, "cut to fit the context window: it had 102") || !strings.Contains(got, "offset and limit") {
		t.Errorf("result of %d bytes: %q…", len(got), got[len(got)-200:])
	}
}

// TestTitlerAsksASideRequest: the title request is the conversation plus
// one instruction, with the session's think value and options and a small
// output cap; the whole reply is the title (a tail that looked like
// the start of a tag included), and it is stored.
func TestTitlerAsksASideRequest(t *testing.T) {
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(ollamatest.Reply{Content: "Done."}, ollamatest.Reply{Content: "Compare a <"})
	if _, err := e.run(t.Context(), "compare them"); err != nil {
		t.Fatal(err)
	}
	titler := e.session.Titler()
	if titler == nil {
		t.Fatal("no titler after an answer")
	}
	title, err := titler(t.Context())
	if err != nil || title != "Compare a <" {
		t.Fatalf("title %q, %v", title, err)
	}
	reqs := e.srv.ChatRequests()
	req := reqs[1]
	// qwen3:8b thinks: the title may too, within its budget, and sends the
	// think value of the conversation.
	if req.Think == nil || req.Think.Value != true || reqs[0].Think == nil || reqs[0].Think.Value != true ||
		req.Options["num_predict"] != float64(24+512) || req.Options["num_ctx"] != float64(32768) {
		t.Errorf("think %+v (the turn's %+v), options %v", req.Think, reqs[0].Think, req.Options)
	}
	if !extendsFrom(reqs[0], req, 0) || len(req.Messages) != len(e.session.messages)+1 {
		t.Errorf("the title request is not the conversation plus the instruction: %d messages", len(req.Messages))
	}
	if st.sessions[e.session.id].Title != "Compare a <" {
		t.Errorf("stored title %q", st.sessions[e.session.id].Title)
	}
}

// roles is the shape of a history: its roles in order.
func roles(msgs []provider.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m.Role)
	}
	return b.String()
}

// TestInterruptBeforeAnyReplyKeepsTurnsAlternating: a prompt interrupted
// before the model said anything gets an empty reply, in the history and
// in the store, so the next prompt does not follow it directly.
func TestInterruptBeforeAnyReplyKeepsTurnsAlternating(t *testing.T) {
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(ollamatest.Reply{Content: "Hello."}, ollamatest.Reply{Hang: true}, ollamatest.Reply{Content: "Third."})
	if _, err := e.run(t.Context(), "hello"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		if e.srv.WaitHanging(t.Context(), 1) == nil {
			cancel()
		}
	}()
	res, err := e.run(ctx, "again")
	if err != nil || res.StopReason != StopInterrupted || res.SessionID != e.session.id {
		t.Fatalf("interrupted run: %+v, %v", res, err)
	}
	if _, err := e.run(t.Context(), "third"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	var sent []provider.Message
	for _, m := range reqs[len(reqs)-1].Messages {
		sent = append(sent, provider.Message{Role: m.Role, Content: m.Content})
	}
	if got, want := roles(sent), "system user assistant user assistant user"; got != want {
		t.Errorf("the request after the interruption: %s, want %s", got, want)
	}
	var stored []provider.Message
	for _, m := range st.history(e.session.id) {
		stored = append(stored, m.Message)
	}
	if got, want := roles(stored), "user assistant user assistant user assistant"; got != want {
		t.Errorf("stored: %s, want %s", got, want)
	}
}

// TestFirstRequestFailingLeavesNoSession: a new session whose first request
// never got a reply is not kept, and the result names no session to
// resume; a failure later in a saved session keeps it, turns alternating.
func TestFirstRequestFailingLeavesNoSession(t *testing.T) {
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(ollamatest.Reply{Status: 500, Error: `model failed to load`},
		ollamatest.Reply{Content: "Hi."}, ollamatest.Reply{Status: 500, Error: "boom"}, ollamatest.Reply{Content: "Back."})
	res, err := e.run(t.Context(), "hello")
	if err == nil || res.SessionID != "" || res.Model != "qwen3:8b" || res.Mode != "build" {
		t.Fatalf("failed first run: %+v, %v; want an error, no session id, the model and mode", res, err)
	}
	if len(st.sessions) != 0 || e.session.Snapshot().Saved {
		t.Fatalf("the failed first run left a session: %+v", st.sessions)
	}
	res, err = e.run(t.Context(), "hello again")
	if err != nil || res.SessionID != e.session.id {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	if rec := st.sessions[e.session.id]; rec == nil || rec.Title != "hello again" {
		t.Fatalf("session after the second run: %+v", rec)
	}
	if _, err := e.run(t.Context(), "fail now"); err == nil {
		t.Fatal("the scripted failure did not fail the run")
	}
	if _, err := e.run(t.Context(), "and now"); err != nil {
		t.Fatal(err)
	}
	var stored []provider.Message
	for _, m := range st.history(e.session.id) {
		stored = append(stored, m.Message)
	}
	if got, want := roles(stored), "user assistant user assistant user assistant"; got != want || stored[0].Content != "hello again" {
		t.Errorf("stored: %s (first %q), want %s from the second prompt on", got, stored[0].Content, want)
	}
}

// TestResumeClaimsTheSession: a session another process uses cannot be
// resumed; a new conversation gives the claim back.
func TestResumeClaimsTheSession(t *testing.T) {
	saved := session.Saved{Record: session.Record{ID: "abcdef0123456789", Title: "t"}, Messages: []session.Message{
		{Seq: 0, Message: provider.Message{Role: "user", Content: "first"}},
		{Seq: 1, Message: provider.Message{Role: "assistant", Content: "ok"}},
	}}
	st := newMemStore()
	st.sessions[saved.ID] = &saved.Record
	st.messages[saved.ID] = map[int]session.Message{}
	st.elsewhere[saved.ID] = true

	e := newEnv(t, nil, withStore(st))
	if err := e.session.ResumeFrom(saved); err != nil {
		t.Fatal(err)
	}
	var inUse *session.InUseError
	if _, err := e.session.Prepare(t.Context()); !errors.As(err, &inUse) || inUse.ID != saved.ID {
		t.Fatalf("Prepare of a session in use: %v", err)
	}
	if len(e.srv.ChatRequests()) != 0 || st.held[saved.ID] {
		t.Fatal("a session in use was taken")
	}

	delete(st.elsewhere, saved.ID)
	if _, err := e.session.Prepare(t.Context()); err != nil {
		t.Fatalf("Prepare once the other process is done: %v", err)
	}
	if !st.held[saved.ID] {
		t.Fatal("the resumed session is not claimed")
	}
	if err := e.session.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st.held[saved.ID] {
		t.Error("a new conversation kept the claim on the old one")
	}
	e.srv.Script(ollamatest.Reply{Content: "new"})
	if _, err := e.run(t.Context(), "new one"); err != nil {
		t.Fatal(err)
	}
	id := e.session.id
	if err := e.session.Close(t.Context()); err != nil || st.held[id] {
		t.Errorf("Close: %v; claim kept: %v", err, st.held[id])
	}
	if _, err := e.run(t.Context(), "after close"); !errors.Is(err, ErrBusy) {
		t.Errorf("a run after Close: %v, want ErrBusy", err)
	}
}

// TestCutRepliesAreMarked: a reply interrupted while it streams (what
// came of it, or an empty reply if the interrupt beat its first chunk),
// and the empty reply of a prompt interrupted before any, are saved
// marked cut, and a resumed history says so; a complete reply is not.
func TestCutRepliesAreMarked(t *testing.T) {
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(ollamatest.Reply{Content: "Hello."},
		ollamatest.Reply{Content: "Let me think about this slowly", Hang: true, AfterChunks: 2},
		ollamatest.Reply{Hang: true})
	if _, err := e.run(t.Context(), "hello"); err != nil {
		t.Fatal(err)
	}
	for i, prompt := range []string{"explain", "again"} {
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			if e.srv.WaitHanging(t.Context(), i+1) == nil {
				cancel()
			}
		}()
		if res, err := e.run(ctx, prompt); err != nil || res.StopReason != StopInterrupted {
			t.Fatalf("%s: %+v, %v", prompt, res, err)
		}
	}
	var got []string
	for _, m := range st.history(e.session.id) {
		got = append(got, fmt.Sprintf("%s %v", m.Message.Role, m.Cut))
	}
	want := "[user false assistant false user false assistant true user false assistant true]"
	if fmt.Sprint(got) != want {
		t.Errorf("stored (role, cut): %v, want %s", got, want)
	}
	saved, err := st.Load(t.Context(), e.session.id)
	if err != nil {
		t.Fatal(err)
	}
	again := newEnv(t, nil, withStore(st))
	st.Release(t.Context(), saved.ID)
	if err := again.session.ResumeFrom(saved); err != nil {
		t.Fatal(err)
	}
	p, err := again.session.Prepare(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var cut []int
	for _, m := range p.History.Messages {
		if m.Cut {
			cut = append(cut, m.Seq)
		}
	}
	if fmt.Sprint(cut) != "[3 5]" {
		t.Errorf("the resumed history marks %v cut, want [3 5]", cut)
	}
}
