package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/telemetry/otlptest"
)

// streamed is what lathe -p --output-format stream-json reported of a run.
type streamed struct {
	turns  []map[string]any // turn_end events
	tools  []map[string]any // tool_result events
	result map[string]any
}

func readStream(t *testing.T, out string) streamed {
	t.Helper()
	var s streamed
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		switch ev["type"] {
		case "turn_end":
			s.turns = append(s.turns, ev)
		case "tool_result":
			s.tools = append(s.tools, ev)
		case "result":
			s.result = ev
		}
	}
	if s.result == nil {
		t.Fatalf("no result in %q", out)
	}
	return s
}

// telemetryRun runs a prompt in a project with the fake server's replies
// and the OTEL_* variables in vars, and returns the exit code, stdout and
// stderr.
func telemetryRun(t *testing.T, srv *ollamatest.Server, vars ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_STATE_HOME=" + home,
		"OLLAMA_HOST=" + srv.URL()}, vars...)
	var stdout, stderr strings.Builder
	code := Run(t.Context(), []string{"-p", "secret prompt: fix a.txt", "--yes", "--output-format", "stream-json", "-C", dir},
		strings.NewReader(""), &stdout, &stderr, env)
	return code, stdout.String(), stderr.String()
}

// scriptTools scripts a run of three turns: two reads at once, a write,
// and the answer.
func scriptTools(srv *ollamatest.Server) {
	call := func(name, args string) ollamatest.ToolCall {
		return ollamatest.ToolCall{Name: name, Arguments: json.RawMessage(args)}
	}
	srv.Script(
		ollamatest.Reply{Content: "Looking.", ToolCalls: []ollamatest.ToolCall{call("list_dir", `{"path":"."}`),
			call("read_file", `{"path":"a.txt"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write_file", `{"path":"a.txt","content":"secret content\n"}`)}},
		ollamatest.Reply{Content: "secret answer: done."},
	)
}

// TestTelemetrySpans: over either protocol, a run with tools is one
// invoke_agent span, with a chat span for each model call and an
// execute_tool span for each call under it, whose attributes say what
// json output says of the same run; the metrics count the same tokens;
// no prompt, reply, argument or result leaves without log_content; and
// everything is sent by the time lathe exits.
func TestTelemetrySpans(t *testing.T) {
	for _, protocol := range []string{otlptest.HTTP, otlptest.GRPC} {
		t.Run(protocol, func(t *testing.T) {
			rcv := otlptest.New(t, protocol)
			srv := ollamatest.New(t)
			scriptTools(srv)
			code, stdout, stderr := telemetryRun(t, srv, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.Endpoint,
				"OTEL_EXPORTER_OTLP_PROTOCOL="+protocol, "OTEL_SERVICE_NAME=farm")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stderr, "telemetry") {
				t.Errorf("stderr: %s", stderr)
			}
			out := readStream(t, stdout)
			spans := rcv.Spans()
			checkSpanTree(t, spans, out)
			checkMetrics(t, rcv.Metrics(), out)
			for _, s := range spans {
				for k, v := range s.Attrs {
					if str, ok := v.(string); ok && strings.Contains(str, "secret") {
						t.Errorf("%s: %s = %q: content left without log_content", s.Name, k, str)
					}
				}
				if s.Resource["service.name"] != "farm" {
					t.Errorf("%s: resource %v", s.Name, s.Resource)
				}
			}
		})
	}
}

// byName returns the spans named name.
func byName(spans []otlptest.Span, prefix string) []otlptest.Span {
	var out []otlptest.Span
	for _, s := range spans {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, s)
		}
	}
	return out
}

func num(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	}
	return -1
}

// checkAttrs checks that span's attributes hold want's values, numbers
// compared as numbers.
func checkAttrs(t *testing.T, s otlptest.Span, want map[string]any) {
	t.Helper()
	for k, w := range want {
		got, ok := s.Attrs[k]
		switch wv := w.(type) {
		case float64, int, int64:
			if !ok || num(got) != num(toNum(wv)) {
				t.Errorf("%s: %s = %v, want %v", s.Name, k, got, w)
			}
		default:
			if !ok || got != w {
				t.Errorf("%s: %s = %#v, want %#v", s.Name, k, got, w)
			}
		}
	}
}

func toNum(v any) any {
	if i, ok := v.(int); ok {
		return int64(i)
	}
	return v
}

func checkSpanTree(t *testing.T, spans []otlptest.Span, out streamed) {
	t.Helper()
	agents := byName(spans, "invoke_agent")
	if len(agents) != 1 {
		t.Fatalf("%d invoke_agent spans of %d", len(agents), len(spans))
	}
	agent := agents[0]
	res := out.result
	if agent.Parent != "" || agent.Kind != "INTERNAL" {
		t.Errorf("invoke_agent: parent %q, kind %s", agent.Parent, agent.Kind)
	}
	usage := res["usage"].(map[string]any)
	timing := res["timing"].(map[string]any)
	checkAttrs(t, agent, map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "ollama",
		"gen_ai.request.model": res["model"], "gen_ai.conversation.id": res["session_id"],
		"gen_ai.usage.input_tokens": usage["prompt_tokens"], "gen_ai.usage.output_tokens": usage["completion_tokens"],
		"lathe.turns": res["turns"], "lathe.tool_calls": res["tool_calls"], "lathe.stop_reason": "done",
		"lathe.load_ms": timing["load_ms"], "lathe.prefill.tokens": timing["prefill_tokens"],
		"lathe.prefill.tokens_per_second": timing["prefill_tps"], "lathe.decode.tokens_per_second": timing["decode_tps"],
		"lathe.cache.tokens": timing["cached_tokens"], "lathe.prefill_ms": timing["prefill_ms"],
		"lathe.decode_ms": timing["decode_ms"], "lathe.recoveries.total": 0, "lathe.recoveries.text_calls": 0})
	chats := byName(spans, "chat ")
	if len(chats) != len(out.turns) || len(chats) != 3 {
		t.Fatalf("%d chat spans, %d turns", len(chats), len(out.turns))
	}
	for i, c := range chats {
		turn := out.turns[i]
		tm := turn["timing"].(map[string]any)
		if c.Parent != agent.ID || c.TraceID != agent.TraceID || c.Kind != "CLIENT" || c.Name != "chat "+res["model"].(string) {
			t.Errorf("chat %d: %s, parent %s, kind %s", i, c.Name, c.Parent, c.Kind)
		}
		checkAttrs(t, c, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "ollama",
			"gen_ai.request.model": res["model"], "gen_ai.conversation.id": res["session_id"], "lathe.turn": i + 1,
			"gen_ai.usage.input_tokens": turn["prompt_tokens"], "gen_ai.usage.output_tokens": turn["completion_tokens"],
			"lathe.load_ms": tm["load_ms"], "lathe.first_token_ms": tm["first_token_ms"],
			"lathe.prefill.tokens": tm["prefill_tokens"], "lathe.prefill.tokens_per_second": tm["prefill_tps"],
			"lathe.decode.tokens_per_second": tm["decode_tps"], "lathe.cache.tokens": tm["cached_tokens"],
			"gen_ai.usage.cache_read.input_tokens": tm["cached_tokens"], "lathe.reload": false, "lathe.cpu_spill": false})
		if r := c.Attrs["gen_ai.response.finish_reasons"]; len(r.([]any)) != 1 || r.([]any)[0] != "stop" {
			t.Errorf("chat %d: finish reasons %v", i, r)
		}
		if c.End.Before(c.Start) || c.Start.Before(agent.Start) || c.End.After(agent.End) {
			t.Errorf("chat %d from %v to %v, outside the run's %v to %v", i, c.Start, c.End, agent.Start, agent.End)
		}
	}
	calls := byName(spans, "execute_tool ")
	if len(calls) != len(out.tools) || len(calls) != 3 {
		t.Fatalf("%d execute_tool spans, %d results", len(calls), len(out.tools))
	}
	for _, want := range out.tools {
		var c *otlptest.Span
		for i := range calls {
			if calls[i].Attrs["gen_ai.tool.call.id"] == want["id"] {
				c = &calls[i]
			}
		}
		if c == nil {
			t.Errorf("no span for call %v", want["id"])
			continue
		}
		if c.Parent != agent.ID || c.Name != "execute_tool "+want["name"].(string) {
			t.Errorf("%s: parent %s", c.Name, c.Parent)
		}
		checkAttrs(t, *c, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": want["name"],
			"gen_ai.tool.type": "function", "lathe.tool.outcome": want["outcome"], "lathe.tool.duration_ms": want["duration_ms"],
			"lathe.turn": want["turn"]})
		_, asked := c.Attrs["lathe.approval.wait_ms"]
		if asked != (want["name"] == "write_file") {
			t.Errorf("%s: approval wait %v", c.Name, c.Attrs["lathe.approval.wait_ms"])
		}
		// A call runs after its reply ended.
		turn := int(num(c.Attrs["lathe.turn"]))
		if turn >= 1 && turn <= len(chats) && c.Start.Before(chats[turn-1].End) {
			t.Errorf("%s started at %v, before its reply ended at %v", c.Name, c.Start, chats[turn-1].End)
		}
	}
}

func checkMetrics(t *testing.T, metrics []otlptest.Metric, out streamed) {
	t.Helper()
	usage := out.result["usage"].(map[string]any)
	sums := map[string]float64{}
	counts := map[string]uint64{}
	for _, m := range metrics {
		key := m.Name
		if tt, ok := m.Attrs["gen_ai.token.type"]; ok {
			key += "/" + tt.(string)
		}
		if op, ok := m.Attrs["gen_ai.operation.name"]; ok && m.Name == "gen_ai.client.operation.duration" {
			key += "/" + op.(string)
		}
		if m.Attrs["gen_ai.request.model"] != out.result["model"] || m.Attrs["gen_ai.provider.name"] != "ollama" {
			t.Errorf("%s: attributes %v", m.Name, m.Attrs)
		}
		sums[key] += m.Sum
		counts[key] += m.Count
	}
	turns := uint64(len(out.turns))
	want := []struct {
		key   string
		count uint64
		sum   float64 // -1: any
	}{
		{"gen_ai.client.token.usage/input", turns, num(usage["prompt_tokens"])},
		{"gen_ai.client.token.usage/output", turns, num(usage["completion_tokens"])},
		{"gen_ai.client.operation.duration/chat", turns, -1},
		{"gen_ai.client.operation.duration/invoke_agent", 1, -1},
		{"lathe.prefill.rate", turns, -1},
		{"lathe.decode.rate", turns, -1},
		{"lathe.cache.hit_ratio", turns, -1},
		{"lathe.first_token.duration", turns, -1},
	}
	for _, w := range want {
		if counts[w.key] != w.count || (w.sum >= 0 && sums[w.key] != w.sum) {
			t.Errorf("%s: %d points, sum %v; want %d, %v", w.key, counts[w.key], sums[w.key], w.count, w.sum)
		}
	}
}

// TestTelemetryContent: with log_content, the prompt and the answer go
// with invoke_agent, each reply with its chat span (its calls included),
// and each call's arguments and result with its execute_tool span.
func TestTelemetryContent(t *testing.T) {
	rcv := otlptest.New(t, otlptest.HTTP)
	srv := ollamatest.New(t)
	scriptTools(srv)
	code, _, stderr := telemetryRun(t, srv, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.Endpoint,
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	spans := rcv.Spans()
	agent := byName(spans, "invoke_agent")[0]
	in, _ := agent.Attrs["gen_ai.input.messages"].(string)
	out, _ := agent.Attrs["gen_ai.output.messages"].(string)
	if in != `[{"role":"user","parts":[{"type":"text","content":"secret prompt: fix a.txt"}]}]` ||
		out != `[{"role":"assistant","parts":[{"type":"text","content":"secret answer: done."}]}]` {
		t.Errorf("invoke_agent: input %s, output %s", in, out)
	}
	chats := byName(spans, "chat ")
	first, _ := chats[0].Attrs["gen_ai.output.messages"].(string)
	var msgs []struct {
		Role  string
		Parts []struct{ Type, Content, ID, Name string }
	}
	if err := json.Unmarshal([]byte(first), &msgs); err != nil || len(msgs) != 1 || len(msgs[0].Parts) != 3 ||
		msgs[0].Parts[0].Content != "Looking." || msgs[0].Parts[1].Name != "list_dir" || msgs[0].Parts[2].Type != "tool_call" {
		t.Errorf("the first reply: %s (%v)", first, err)
	}
	for _, c := range byName(spans, "execute_tool write_file") {
		if args, _ := c.Attrs["gen_ai.tool.call.arguments"].(string); !strings.Contains(args, "secret content") {
			t.Errorf("write_file arguments %q", args)
		}
		if _, ok := c.Attrs["gen_ai.tool.call.result"].(string); !ok {
			t.Errorf("write_file: no result: %v", c.Attrs)
		}
	}
}

// TestTelemetryDeadCollector: a collector that cannot be reached changes
// nothing of the run but one warning line, in lathe's words, at the end.
func TestTelemetryDeadCollector(t *testing.T) {
	for _, protocol := range []string{otlptest.HTTP, otlptest.GRPC} {
		t.Run(protocol, func(t *testing.T) {
			srv := ollamatest.New(t)
			scriptTools(srv)
			code, stdout, stderr := telemetryRun(t, srv, "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1",
				"OTEL_EXPORTER_OTLP_PROTOCOL="+protocol)
			if code != 0 || readStream(t, stdout).result["result"] != "secret answer: done." {
				t.Fatalf("exit %d, stdout %s", code, stdout)
			}
			var warnings []string
			for line := range strings.Lines(stderr) {
				if !strings.HasPrefix(line, "✓") {
					warnings = append(warnings, line)
				}
			}
			want := "lathe: warning: telemetry could not be sent to http://127.0.0.1:1"
			if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) || !strings.HasSuffix(warnings[0], ": connection refused (7 spans and 1 export of metrics lost)\n") {
				t.Errorf("stderr:\n%s\nwant one line starting %q, saying the connection was refused", stderr, want)
			}
		})
	}
}

// TestTelemetryFlushedWhenInterrupted: a run stopped by Ctrl+C still
// sends its spans before lathe exits: the model call cut short ends in
// error.
func TestTelemetryFlushedWhenInterrupted(t *testing.T) {
	rcv := otlptest.New(t, otlptest.HTTP)
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Reply{Content: "a long answer", Hang: true, AfterChunks: 2})
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "OLLAMA_HOST=" + srv.URL(),
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.Endpoint}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		if srv.WaitHanging(ctx, 1) == nil {
			cancel()
		}
	}()
	var stdout, stderr strings.Builder
	if code := Run(ctx, []string{"-p", "hi", "-C", t.TempDir()}, strings.NewReader(""), &stdout, &stderr, env); code != exitInterrupted {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	spans := rcv.Spans()
	agent, chats := byName(spans, "invoke_agent"), byName(spans, "chat ")
	if len(agent) != 1 || len(chats) != 1 {
		t.Fatalf("spans %+v", spans)
	}
	checkAttrs(t, agent[0], map[string]any{"lathe.stop_reason": "interrupted"})
	if chats[0].Attrs["error.type"] != "interrupted" {
		t.Errorf("error.type %v", chats[0].Attrs["error.type"])
	}
	if chats[0].StatusCode != "STATUS_CODE_ERROR" {
		t.Errorf("the call cut short: %s %v", chats[0].StatusCode, chats[0].Attrs)
	}
	if len(rcv.Metrics()) == 0 {
		t.Errorf("no metrics")
	}
}

// TestTelemetryOnlyWhenTheModelRuns: commands that do not run the model
// export nothing, and connect nowhere, whatever the variables say.
func TestTelemetryOnlyWhenTheModelRuns(t *testing.T) {
	rcv := otlptest.New(t, otlptest.HTTP)
	srv := ollamatest.New(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "OLLAMA_HOST=" + srv.URL(),
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.Endpoint, "OTEL_TRACES_EXPORTER=otlp,console", "OTEL_METRICS_EXPORTER=otlp"}
	for _, args := range [][]string{{"--version"}, {"doctor"}, {"sessions"}, {"--help"}, {"context"}} {
		var stdout, stderr strings.Builder
		Run(t.Context(), append(args, "-C", t.TempDir()), strings.NewReader(""), &stdout, &stderr, env)
		if strings.Contains(stderr.String(), "TraceID") {
			t.Errorf("lathe %s wrote spans: %s", args, stderr.String())
		}
	}
	if got := rcv.Requests(); len(got) != 0 {
		t.Errorf("exports received: %q", got)
	}
}

// TestTelemetryTUI: the TUI's runs are exported as -p's are, the time a
// call waited in the approval dialog included, and sent when it quits.
func TestTelemetryTUI(t *testing.T) {
	rcv := otlptest.New(t, otlptest.GRPC)
	r := newTUIRun(t)
	r.env = []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}
	r.srv.Script(writeHello...)
	r.start(t, nil)
	r.pty.WriteString("create hello.txt with a greeting\r")
	r.screen.waitFor(t, "Allow write_file to create hello.txt?")
	r.pty.WriteString("y")
	r.screen.waitFor(t, "with a greeting.")
	r.quit(t)
	spans := rcv.Spans()
	agents, chats, calls := byName(spans, "invoke_agent"), byName(spans, "chat "), byName(spans, "execute_tool write_file")
	if len(agents) != 1 || len(chats) != 2 || len(calls) != 1 {
		t.Fatalf("%d runs, %d model calls, %d write_file calls", len(agents), len(chats), len(calls))
	}
	wait, ok := calls[0].Attrs["lathe.approval.wait_ms"].(int64)
	if !ok || time.Duration(wait)*time.Millisecond > calls[0].End.Sub(calls[0].Start) {
		t.Errorf("approval wait %v in a call of %v", calls[0].Attrs["lathe.approval.wait_ms"], calls[0].End.Sub(calls[0].Start))
	}
	checkAttrs(t, agents[0], map[string]any{"lathe.stop_reason": "done", "lathe.turns": 2})
}

// TestTelemetryConsole: the console exporters write to stderr; stdout
// carries the answer alone.
func TestTelemetryConsole(t *testing.T) {
	srv := ollamatest.New(t)
	scriptTools(srv)
	code, stdout, stderr := telemetryRun(t, srv, "OTEL_TRACES_EXPORTER=console", "OTEL_METRICS_EXPORTER=console")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	readStream(t, stdout) // every line an event of the run's
	for _, want := range []string{`"Name":"invoke_agent lathe"`, `"Name":"execute_tool write_file"`, `"gen_ai.client.token.usage"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
}
