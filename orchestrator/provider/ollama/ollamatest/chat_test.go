package ollamatest

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

var callIDPattern = regexp.MustCompile(`^call_[a-z0-9]{8}$`)

// wantCall is a tool call as the client must reconstruct it. id "*" means
// "a generated id"; index -1 means "no index key" (decodes as 0).
type wantCall struct {
	id    string
	index int
	name  string
	args  string // exact JSON, key order included
}

func TestChatStreamsScriptedTurn(t *testing.T) {
	read := ToolCall{Name: "read_file", Arguments: json.RawMessage(`{"path":"b.go","line":3,"all":true}`)}
	grep := ToolCall{Name: "grep", Arguments: json.RawMessage(`{"pattern":"<T>","glob":"*.go"}`)}
	tests := []struct {
		name         string
		reply        Reply
		numPredict   int
		wantContent  string
		wantThinking string
		wantCalls    []wantCall
		callChunks   []int // calls per done:false chunk that carries calls
		callsOnDone  int   // calls on the done:true chunk
		wantReason   string
		wantEval     int // 0: not checked
	}{{
		name:        "text",
		reply:       Reply{Content: "Hello there! How can I help you today? 😊"},
		wantContent: "Hello there! How can I help you today? 😊",
		wantReason:  "stop",
		wantEval:    len(SplitPieces("Hello there! How can I help you today? 😊")),
	}, {
		name:         "thinking then text",
		reply:        Reply{Thinking: "User asks: \"Count\".", Content: "1, 2, 3."},
		wantThinking: "User asks: \"Count\".",
		wantContent:  "1, 2, 3.",
		wantReason:   "stop",
	}, {
		name:        "calls in separate chunks",
		reply:       Reply{Content: "Let me look.", ToolCalls: []ToolCall{read, grep}},
		wantContent: "Let me look.",
		wantCalls: []wantCall{
			{"*", 0, "read_file", `{"path":"b.go","line":3,"all":true}`},
			{"*", 1, "grep", `{"pattern":"<T>","glob":"*.go"}`},
		},
		callChunks: []int{1, 1},
		wantReason: "stop",
	}, {
		name:       "calls together",
		reply:      Reply{ToolCalls: []ToolCall{read, grep}, Calls: CallsTogether},
		wantCalls:  []wantCall{{"*", 0, "read_file", `{"path":"b.go","line":3,"all":true}`}, {"*", 1, "grep", `{"pattern":"<T>","glob":"*.go"}`}},
		callChunks: []int{2},
		wantReason: "stop",
	}, {
		name:         "calls on the done chunk, gpt-oss style",
		reply:        Reply{Thinking: "Use grep.", ToolCalls: []ToolCall{grep}, Calls: CallsOnDone, CallFormat: CallFormatHarmony},
		wantThinking: "Use grep.",
		wantCalls:    []wantCall{{"*", 0, "grep", `{"pattern":"<T>","glob":"*.go"}`}},
		callsOnDone:  1,
		wantReason:   "stop",
	}, {
		name:       "harmony puts index 0 on every call",
		reply:      Reply{ToolCalls: []ToolCall{read, grep}, CallFormat: CallFormatHarmony},
		wantCalls:  []wantCall{{"*", 0, "read_file", `{"path":"b.go","line":3,"all":true}`}, {"*", 0, "grep", `{"pattern":"<T>","glob":"*.go"}`}},
		callChunks: []int{1, 1},
		wantReason: "stop",
	}, {
		name:       "legacy calls have no id and no index",
		reply:      Reply{ToolCalls: []ToolCall{{Name: "getTime"}, read}, CallFormat: CallFormatLegacy},
		wantCalls:  []wantCall{{"", 0, "getTime", `{}`}, {"", 0, "read_file", `{"path":"b.go","line":3,"all":true}`}},
		callChunks: []int{1, 1},
		wantReason: "stop",
	}, {
		name:       "explicit id",
		reply:      Reply{ToolCalls: []ToolCall{{ID: "call_fixed01", Name: "getTime", Arguments: json.RawMessage(`{}`)}}},
		wantCalls:  []wantCall{{"call_fixed01", 0, "getTime", `{}`}},
		callChunks: []int{1},
		wantReason: "stop",
	}, {
		name:        "scripted done reason and counts",
		reply:       Reply{Content: "cut", DoneReason: "length", EvalCount: 50},
		wantContent: "cut",
		wantReason:  "length",
		wantEval:    50,
	}, {
		name:        "num_predict cuts the turn",
		reply:       Reply{Content: "one two three four", ToolCalls: []ToolCall{read}},
		numPredict:  2,
		wantContent: "one two",
		wantReason:  "length",
		wantEval:    2,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t)
			s.Script(tt.reply)
			req := userChat("qwen3:8b", "hi")
			if tt.numPredict > 0 {
				req.Options = map[string]any{"num_predict": tt.numPredict}
			}
			res := chat(t.Context(), newClient(t, s), req)
			if res.err != nil {
				t.Fatalf("Chat: %v", res.err)
			}
			checkStreamShape(t, res)
			if res.content != tt.wantContent || res.thinking != tt.wantThinking {
				t.Errorf("content %q thinking %q, want %q and %q", res.content, res.thinking, tt.wantContent, tt.wantThinking)
			}
			checkCalls(t, res.calls, tt.wantCalls)
			checkCallPlacement(t, res, tt.callChunks, tt.callsOnDone)
			if res.final.DoneReason != tt.wantReason {
				t.Errorf("done_reason %q, want %q", res.final.DoneReason, tt.wantReason)
			}
			if tt.wantEval != 0 && res.final.EvalCount != tt.wantEval {
				t.Errorf("eval_count %d, want %d", res.final.EvalCount, tt.wantEval)
			}
		})
	}
}

// checkStreamShape checks what every streamed turn must look like: several
// done:false chunks, one done:true chunk at the end with "content":"" and all
// six metrics, no metrics before it, thinking chunks before content chunks.
func checkStreamShape(t *testing.T, res turnResult) {
	t.Helper()
	if res.final == nil {
		t.Fatalf("no done:true chunk in %d chunks", len(res.chunks))
	}
	last := res.chunks[len(res.chunks)-1]
	if !last.Done {
		t.Errorf("last chunk is not done:true")
	}
	m := res.final.Metrics
	if m.TotalDuration <= 0 || m.LoadDuration <= 0 || m.PromptEvalCount <= 0 || m.PromptEvalDuration <= 0 || m.EvalCount <= 0 || m.EvalDuration <= 0 {
		t.Errorf("final metrics %+v: want all six non-zero", m)
	}
	if res.final.Message.Content != "" || res.final.Message.Role != "assistant" {
		t.Errorf("final message %+v: want role assistant and empty content", res.final.Message)
	}
	sawContent := false
	for i, c := range res.chunks[:len(res.chunks)-1] {
		if c.Done || c.Metrics != (api.Metrics{}) || c.DoneReason != "" {
			t.Errorf("chunk %d: done %v reason %q metrics %+v before the final line", i, c.Done, c.DoneReason, c.Metrics)
		}
		if c.Message.Thinking != "" && sawContent {
			t.Errorf("chunk %d: thinking after content", i)
		}
		sawContent = sawContent || c.Message.Content != ""
		if len(c.Message.Content) > 12 || len(c.Message.Thinking) > 12 {
			t.Errorf("chunk %d: piece %q%q is not token-sized", i, c.Message.Content, c.Message.Thinking)
		}
	}
}

func checkCalls(t *testing.T, got []api.ToolCall, want []wantCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d tool calls, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		var args api.ToolCallFunctionArguments // marshals as the client would
		if err := json.Unmarshal([]byte(w.args), &args); err != nil {
			t.Fatal(err)
		}
		idOK := g.ID == w.id || (w.id == "*" && callIDPattern.MatchString(g.ID))
		if !idOK || g.Function.Index != w.index || g.Function.Name != w.name || g.Function.Arguments.String() != args.String() {
			t.Errorf("call %d: id %q index %d %s(%s), want id %q index %d %s(%s)", i,
				g.ID, g.Function.Index, g.Function.Name, g.Function.Arguments.String(), w.id, w.index, w.name, w.args)
		}
	}
}

func checkCallPlacement(t *testing.T, res turnResult, callChunks []int, onDone int) {
	t.Helper()
	var got []int
	for _, c := range res.chunks[:len(res.chunks)-1] {
		if n := len(c.Message.ToolCalls); n > 0 {
			got = append(got, n)
			if c.Message.Content != "" {
				t.Errorf("tool-call chunk has content %q", c.Message.Content)
			}
		}
	}
	if len(got) != len(callChunks) {
		t.Errorf("tool-call chunks %v, want %v", got, callChunks)
	} else {
		for i := range got {
			if got[i] != callChunks[i] {
				t.Errorf("tool-call chunks %v, want %v", got, callChunks)
				break
			}
		}
	}
	if n := len(res.final.Message.ToolCalls); n != onDone {
		t.Errorf("%d calls on the done chunk, want %d", n, onDone)
	}
}

func TestChatNonStreaming(t *testing.T) {
	s := New(t)
	reply := Reply{
		Thinking:  "Think <a>.",
		Content:   "Here you go & more.",
		ToolCalls: []ToolCall{{Name: "a", Arguments: json.RawMessage(`{"y":1,"x":2}`)}, {Name: "b"}},
		Calls:     CallsOnDone,
	}
	s.Script(reply, reply)
	req := userChat("qwen3:8b", "hi")
	req.Stream = new(bool)
	res := chat(t.Context(), newClient(t, s), req)
	if res.err != nil {
		t.Fatalf("Chat: %v", res.err)
	}
	if len(res.chunks) != 1 || res.final == nil {
		t.Fatalf("got %d objects (final %v), want one done object", len(res.chunks), res.final != nil)
	}
	if res.content != reply.Content || res.thinking != reply.Thinking {
		t.Errorf("content %q thinking %q, want %q and %q", res.content, res.thinking, reply.Content, reply.Thinking)
	}
	checkCalls(t, res.calls, []wantCall{{"*", 0, "a", `{"y":1,"x":2}`}, {"*", 1, "b", `{}`}})

	resp, body := post(t, s, "POST", "/api/chat", `{"model":"qwen3:8b","stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q, want %q", ct, "application/json; charset=utf-8")
	}
	if !json.Valid([]byte(body)) || body[len(body)-1] != '}' {
		t.Errorf("body %q: want one JSON object with no trailing newline", body)
	}
}

func TestChatFuncReply(t *testing.T) {
	s := New(t)
	echo := Reply{Func: func(req api.ChatRequest) Reply {
		last := req.Messages[len(req.Messages)-1]
		return Reply{Content: "got " + last.Role + ": " + last.Content}
	}}
	s.Script(Reply{ToolCalls: []ToolCall{{Name: "ls"}}}, echo)
	c := newClient(t, s)
	first := chat(t.Context(), c, userChat("qwen3:8b", "list"))
	if first.err != nil || len(first.calls) != 1 {
		t.Fatalf("first turn: err %v, calls %+v", first.err, first.calls)
	}
	req := userChat("qwen3:8b", "list")
	req.Messages = append(req.Messages,
		api.Message{Role: "assistant", ToolCalls: first.calls},
		api.Message{Role: "tool", Content: "a.go b.go", ToolName: "ls", ToolCallID: first.calls[0].ID})
	second := chat(t.Context(), c, req)
	if second.err != nil || second.content != "got tool: a.go b.go" {
		t.Fatalf("second turn: err %v, content %q", second.err, second.content)
	}
	got := s.ChatRequests()
	if len(got) != 2 || got[1].Messages[2].ToolCallID != first.calls[0].ID {
		t.Errorf("recorded %d chat requests; want 2, the second carrying tool_call_id %q", len(got), first.calls[0].ID)
	}
}

func TestChatConcurrent(t *testing.T) {
	s := New(t)
	const n = 8
	for range n {
		s.Script(Reply{Content: "same answer for everyone", ToolCalls: []ToolCall{{Name: "x"}}})
	}
	c := newClient(t, s)
	results := make(chan turnResult, n)
	for range n {
		go func() { results <- chat(t.Context(), c, userChat("qwen3:8b", "hi")) }()
	}
	ids := map[string]bool{}
	for range n {
		res := <-results
		if res.err != nil || res.final == nil || res.content != "same answer for everyone" || len(res.calls) != 1 {
			t.Fatalf("concurrent chat: err %v, done %v, content %q, calls %d", res.err, res.final != nil, res.content, len(res.calls))
		}
		ids[res.calls[0].ID] = true
	}
	if len(ids) != n {
		t.Errorf("%d distinct call ids over %d calls", len(ids), n)
	}
	if got := len(s.Requests()); got != n {
		t.Errorf("recorded %d requests, want %d", got, n)
	}
}

// TestPacedStream: WithPace spaces the streamed chunks, as a GPU writing
// at a given speed does; the text is the same.
func TestPacedStream(t *testing.T) {
	const pace = 20 * time.Millisecond
	s := New(t, WithPace(pace))
	s.Script(Reply{Content: "one two three four five"})
	var at []time.Time
	var text string
	start := time.Now()
	err := newClient(t, s).Chat(t.Context(), userChat(DefaultModel().Name, "count"), func(r api.ChatResponse) error {
		if !r.Done {
			at = append(at, time.Now())
			text += r.Message.Content
		}
		return nil
	})
	if err != nil || text != "one two three four five" || len(at) < 5 {
		t.Fatalf("text %q in %d chunks, %v", text, len(at), err)
	}
	// The server sleeps the pace before each chunk: the last cannot come
	// sooner than that many paces after the request.
	if took := at[len(at)-1].Sub(start); took < time.Duration(len(at))*pace {
		t.Errorf("%d chunks came in %v; want at least %v", len(at), took, time.Duration(len(at))*pace)
	}
}
