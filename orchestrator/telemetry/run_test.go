package telemetry

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/telemetry/otlptest"
	"lathe/tools"
)

// fakeClock moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newTelemetry is telemetry sending to a receiver, on clock c.
func newTelemetry(t *testing.T, c *fakeClock, env map[string]string) (*Telemetry, *otlptest.Receiver) {
	t.Helper()
	rcv := otlptest.New(t, otlptest.HTTP)
	vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.Endpoint}
	for k, v := range env {
		vars[k] = v
	}
	tel, err := New(t.Context(), Options{Config: config.Telemetry{Env: vars}, Provider: "ollama",
		Server: "http://gpu-box:11434", KeepAlive: 5 * time.Minute, Version: "test", Log: zerolog.Nop(), Now: c.Now})
	if err != nil || tel == nil {
		t.Fatalf("telemetry %v, %v", tel, err)
	}
	return tel, rcv
}

// spanNamed returns the spans named name, in the order they ended.
func spanNamed(spans []otlptest.Span, name string) []otlptest.Span {
	var out []otlptest.Span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestLocalFigures: what only a local model server shows is on the spans:
// a reload and its cause, a spill to the CPU, a call's wait for approval,
// its denial, its repairs and what the sandbox blocked, recoveries by
// kind; a model call that failed ends with the kind of failure.
func TestLocalFigures(t *testing.T) {
	c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	tel, rcv := newTelemetry(t, c, map[string]string{"LATHE_EVAL_EXPERIMENT": "7", "LATHE_EVAL_TASK": "fix-bug"})

	// The first run: a reply with a call that waits 2s for approval and is
	// denied, a shell call the sandbox blocked, and a spill.
	event, done := tel.Run("s1", "prompt")
	event(orchestrator.TurnStarted{Turn: 1, Model: "qwen3:8b"})
	c.advance(3 * time.Second)
	event(orchestrator.Spill{Model: "qwen3:8b", Size: 10 << 30, VRAM: 8 << 30, NumCtx: 32768, FitNumCtx: 24576})
	event(orchestrator.ToolStarted{Turn: 1, Index: 0, ID: "c1", Name: "write_file", Kind: tools.KindWrite})
	event(orchestrator.ToolStarted{Turn: 1, Index: 1, ID: "c2", Name: "shell", Kind: tools.KindExec})
	c.advance(2 * time.Second)
	event(orchestrator.ToolFinished{Turn: 1, Index: 0, ID: "c1", Name: "write_file", Kind: tools.KindWrite,
		Outcome: orchestrator.OutcomeDenied, NotApproved: true, Waited: 2 * time.Second})
	event(orchestrator.ToolFinished{Turn: 1, Index: 1, ID: "c2", Name: "shell", Kind: tools.KindExec, Outcome: orchestrator.OutcomeFailed,
		Duration: time.Second, Result: tools.Result{Blocked: []string{"write /etc/passwd"}, Repairs: []string{"a", "b"}}})
	event(orchestrator.TurnFinished{Turn: 1, PromptTokens: 1000, CompletionTokens: 20, Reply: 3 * time.Second,
		DoneReason: "stop", ToolCalls: 2, Timing: orchestrator.Timing{Load: 2 * time.Second, PrefillTokens: 1000}})
	done(orchestrator.Result{StopReason: orchestrator.StopDone, Turns: 1, ToolCalls: 2, Model: "qwen3:8b", SessionID: "s1",
		Recoveries: orchestrator.Recoveries{TextCalls: 2, ThinkLeaks: 1}}, nil)

	// Idle past keep_alive: the next reload is put down to it; soon after,
	// to the server.
	c.advance(10 * time.Minute)
	event, done = tel.Run("s1", "again")
	for turn := 1; turn <= 2; turn++ {
		event(orchestrator.TurnStarted{Turn: turn, Model: "qwen3:8b"})
		c.advance(time.Second)
		event(orchestrator.TurnFinished{Turn: turn, Reply: time.Second, Timing: orchestrator.Timing{Reloaded: true, Load: time.Second}})
	}
	event(orchestrator.TurnStarted{Turn: 3, Model: "qwen3:8b"})
	c.advance(time.Second)
	// The reply was counted before the stream broke: the call still ends
	// failed, with its count.
	event(orchestrator.TurnFinished{Turn: 3, Failed: true, PromptTokens: 900, CompletionTokens: 1, Reply: time.Second})
	done(orchestrator.Result{StopReason: orchestrator.StopError, Turns: 3, Model: "qwen3:8b", SessionID: "s1"},
		errors.Join(errors.New("the stream broke"), provider.ErrStreamBroken))
	if err := tel.Close(t.Context()); err != nil {
		t.Fatal(err)
	}

	spans := rcv.Spans()
	chats := spanNamed(spans, "chat qwen3:8b")
	if len(chats) != 4 {
		t.Fatalf("%d chat spans", len(chats))
	}
	first := chats[0]
	checkValues(t, first, map[string]any{"lathe.cpu_spill": true, "lathe.cpu_spill.model_bytes": int64(10 << 30),
		"lathe.cpu_spill.vram_bytes": int64(8 << 30), "lathe.cpu_spill.fit_num_ctx": int64(24576), "lathe.reload": false,
		"lathe.load_ms": int64(2000), "server.address": "gpu-box", "server.port": int64(11434), "lathe.tool_calls": int64(2)})
	if d := first.End.Sub(first.Start); d != 3*time.Second {
		t.Errorf("the first call took %v, want the 3s to its reply's end", d)
	}
	if _, ok := first.Attrs["lathe.reload.cause"]; ok {
		t.Errorf("a first load has a reload cause: %v", first.Attrs)
	}
	checkValues(t, chats[1], map[string]any{"lathe.reload": true, "lathe.reload.cause": "keep_alive"})
	checkValues(t, chats[2], map[string]any{"lathe.reload": true, "lathe.reload.cause": "evicted"})
	checkValues(t, chats[3], map[string]any{"error.type": "stream_broken", "gen_ai.usage.output_tokens": int64(1)})
	if chats[3].StatusCode != "STATUS_CODE_ERROR" {
		t.Errorf("the failed call: %s", chats[3].StatusCode)
	}
	write := spanNamed(spans, "execute_tool write_file")[0]
	checkValues(t, write, map[string]any{"lathe.approval.wait_ms": int64(2000), "lathe.approval.denied": true,
		"lathe.tool.outcome": "denied", "error.type": "denied", "gen_ai.tool.call.id": "c1"})
	shell := spanNamed(spans, "execute_tool shell")[0]
	checkValues(t, shell, map[string]any{"lathe.sandbox.blocked": int64(1), "lathe.tool.repairs": int64(2),
		"lathe.approval.wait_ms": int64(0), "lathe.approval.denied": false, "lathe.tool.duration_ms": int64(1000)})
	if _, ok := shell.Attrs["lathe.sandbox.blocked_what"]; ok {
		t.Error("what the sandbox blocked left without log_content")
	}
	agents := spanNamed(spans, "invoke_agent lathe")
	if len(agents) != 2 {
		t.Fatalf("%d runs", len(agents))
	}
	checkValues(t, agents[0], map[string]any{"lathe.recoveries.text_calls": int64(2), "lathe.recoveries.think_leaks": int64(1),
		"lathe.recoveries.total": int64(3), "lathe.denied": int64(1), "lathe.eval.experiment": "7", "lathe.eval.task": "fix-bug"})
	checkValues(t, agents[1], map[string]any{"error.type": "stream_broken", "lathe.stop_reason": "error"})
	if agents[0].Resource["lathe.eval.experiment"] != "7" || agents[0].Resource["service.version"] != "test" {
		t.Errorf("resource %v", agents[0].Resource)
	}
}

func checkValues(t *testing.T, s otlptest.Span, want map[string]any) {
	t.Helper()
	for k, w := range want {
		if got := s.Attrs[k]; got != w {
			t.Errorf("%s: %s = %#v, want %#v", s.Name, k, got, w)
		}
	}
}

// TestOff: nothing asked for, nothing made.
func TestOff(t *testing.T) {
	tel, err := New(t.Context(), Options{Config: config.Telemetry{Env: map[string]string{"OTEL_SERVICE_NAME": "x"}}})
	if tel != nil || err != nil {
		t.Errorf("telemetry %v, %v", tel, err)
	}
}

// TestRecoveryKinds: every kind of recovery json output counts has its
// attribute, under the same name.
func TestRecoveryKinds(t *testing.T) {
	b, err := json.Marshal(orchestrator.Recoveries{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds map[string]int
	if err := json.Unmarshal(b, &kinds); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, kv := range recoveries(orchestrator.Recoveries{}) {
		have[string(kv.Key)] = true
	}
	for k := range kinds {
		if !have["lathe.recoveries."+k] {
			t.Errorf("no attribute for recoveries of kind %s", k)
		}
	}
	if len(have) != len(kinds)+1 {
		t.Errorf("%d attributes for %d kinds and the total", len(have), len(kinds))
	}
}

// TestParentFromEnvironment: with TRACEPARENT set, a run's span is a
// child of the span it names, in its trace.
func TestParentFromEnvironment(t *testing.T) {
	c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	tel, rcv := newTelemetry(t, c, map[string]string{"TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"})
	_, done := tel.Run("s", "p")
	done(orchestrator.Result{StopReason: orchestrator.StopDone}, nil)
	if err := tel.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	spans := rcv.Spans()
	if len(spans) != 1 || spans[0].TraceID != "0af7651916cd43dd8448eb211c80319c" || spans[0].Parent != "b7ad6b7169203331" {
		t.Errorf("spans %+v", spans)
	}
}
