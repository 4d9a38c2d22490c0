package orchestrator

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/prompts"
)

// isSummaryRequest reports whether a request asks for a summary: the
// compaction instruction last, or as the system prompt of a transcript.
func isSummaryRequest(req api.ChatRequest) bool {
	for _, m := range []api.Message{req.Messages[0], req.Messages[len(req.Messages)-1]} {
		if strings.HasPrefix(m.Content, "The conversation is about to outgrow the context window") {
			return true
		}
	}
	return false
}

// longTask answers like a model working through files one per turn: n
// reads, then an answer; summary requests get a summary.
func longTask(n int) ollamatest.Reply {
	turn := 0
	return ollamatest.Reply{Func: func(req api.ChatRequest) ollamatest.Reply {
		if isSummaryRequest(req) {
			return ollamatest.Reply{Content: fmt.Sprintf("The user asked to read files one by one; files up to %d are read and fine.", turn)}
		}
		turn++
		if turn > n {
			return ollamatest.Reply{Content: fmt.Sprintf("All %d files are read.", n)}
		}
		return ollamatest.Reply{Content: fmt.Sprintf("Reading file %d.", turn),
			ToolCalls: []ollamatest.ToolCall{call("read", fmt.Sprintf(`{"path":"file%d.txt"}`, turn))}}
	}}
}

func compactEnv(t *testing.T, numCtx int) *env {
	t.Helper()
	reader := bigRead(600)
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", ContextLength: numCtx})},
		withTools(reader), withLimits(func(l *config.Limits) { l.MaxTurns = 60 }))
	reader.log = e.log
	return e
}

func TestLongTaskStaysInsideTheWindow(t *testing.T) {
	const numCtx = 3072
	e := compactEnv(t, numCtx)
	e.srv.Respond(longTask(40).Func)
	res, err := e.run(t.Context(), "read the 40 files, one at a time")
	if err != nil || res.StopReason != StopDone || res.Turns != 41 || res.Text != "All 40 files are read." {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	reqs := e.srv.ChatRequests()
	var main []api.ChatRequest
	summaries := 0
	for i, req := range reqs {
		if n := ollamatest.EstimateTokens(req); n > numCtx {
			t.Errorf("request %d takes %d tokens, more than num_ctx %d", i, n, numCtx)
		}
		if isSummaryRequest(req) {
			summaries++
			continue
		}
		main = append(main, req)
	}
	compactions := 0
	for _, ev := range e.events {
		if _, ok := ev.(Compacted); ok {
			compactions++
		}
	}
	if summaries == 0 || compactions != summaries || compactions > 12 {
		t.Errorf("%d summary requests, %d compactions: want some, equal, and not one every turn", summaries, compactions)
	}
	breaks := 0
	for i := 1; i < len(main); i++ {
		if !extends(main[i-1], main[i]) {
			breaks++
		}
	}
	if breaks != compactions {
		t.Errorf("%d requests do not extend the one before, for %d compactions: requests must stay append-only between them", breaks, compactions)
	}
	// The user's request survives every compaction word for word.
	if last := main[len(main)-1]; !strings.Contains(last.Messages[1].Content, "read the 40 files, one at a time") ||
		!strings.HasPrefix(last.Messages[1].Content, prompts.SummaryHeader) {
		t.Errorf("the compacted request starts with %q", last.Messages[1].Content)
	}
	// The full history is kept, only requests are compacted.
	if n := len(e.session.messages); n != 1+1+40*2+1 {
		t.Errorf("the session holds %d messages, want all of them", n)
	}
}

// extends reports whether b's messages start with a's, byte for byte.
func extends(a, b api.ChatRequest) bool {
	if len(b.Messages) < len(a.Messages) {
		return false
	}
	for i := range a.Messages {
		x, _ := json.Marshal(a.Messages[i])
		y, _ := json.Marshal(b.Messages[i])
		if string(x) != string(y) {
			return false
		}
	}
	return true
}

func TestOverflowCompactsHarderAndRetriesOnce(t *testing.T) {
	e := compactEnv(t, 8192)
	task := longTask(6)
	for range 7 {
		e.srv.Script(task)
	}
	if _, err := e.run(t.Context(), "read six files"); err != nil {
		t.Fatal(err)
	}
	overflow := ollamatest.Reply{Status: 400, Error: "the input length exceeds the context length"}
	summary := ollamatest.Reply{Content: "Six files were read."}
	e.srv.Script(overflow, summary, ollamatest.Reply{Content: "Here is the recap."})
	res, err := e.run(t.Context(), "recap")
	if err != nil || res.Text != "Here is the recap." {
		t.Fatalf("after one overflow: res = %+v, err = %v", res, err)
	}
	reqs := e.srv.ChatRequests()
	if s := reqs[len(reqs)-2]; s.Messages[0].Role != "system" || !isSummaryRequest(s) || len(s.Tools) != 0 {
		t.Errorf("the harder compaction did not summarize from a transcript: %+v", s.Messages[0])
	}
	e.srv.Script(overflow, summary, overflow)
	_, err = e.run(t.Context(), "again")
	if !errors.Is(err, provider.ErrContextOverflow) || !strings.Contains(err.Error(), "no longer fits") {
		t.Errorf("a second overflow: err = %v, want a clear context overflow", err)
	}
}

func TestForcedCompaction(t *testing.T) {
	e := compactEnv(t, 32768)
	task := longTask(3)
	for range 4 {
		e.srv.Script(task)
	}
	if _, err := e.run(t.Context(), "read three files"); err != nil {
		t.Fatal(err)
	}
	e.srv.Script(ollamatest.Reply{Content: "Three files were read."})
	var evs []Event
	if err := e.session.Compact(t.Context(), func(ev Event) { evs = append(evs, ev) }); err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 {
		t.Fatalf("events = %+v, want one Compacted", evs)
	}
	if c, ok := evs[0].(Compacted); !ok || c.Summarized == 0 || c.After >= c.Before {
		t.Errorf("compacted = %+v", evs[0])
	}
	e.srv.Script(ollamatest.Reply{Content: "ok"})
	if _, err := e.run(t.Context(), "next"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	if first := reqs[len(reqs)-1].Messages[1].Content; !strings.Contains(first, "Three files were read.") {
		t.Errorf("the request after /compact starts with %q", first)
	}
}
