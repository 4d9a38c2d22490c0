package ollamatest

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

func TestRenderPromptAndEstimate(t *testing.T) {
	var args api.ToolCallFunctionArguments
	if err := json.Unmarshal([]byte(`{"path":"a.go"}`), &args); err != nil {
		t.Fatal(err)
	}
	req := api.ChatRequest{
		Tools: api.Tools{{Type: "function", Function: api.ToolFunction{Name: "read"}}},
		Messages: []api.Message{
			{Role: "user", Content: "read a.go"},
			{Role: "assistant", Thinking: "ok", ToolCalls: []api.ToolCall{{ID: "call_x", Function: api.ToolCallFunction{Name: "read", Arguments: args}}}},
			{Role: "tool", Content: "package a", ToolName: "read", ToolCallID: "call_x"},
		},
	}
	tool, _ := json.Marshal(req.Tools[0])
	want := "<|im_start|>tools\n" + string(tool) + "\n<|im_end|>\n" +
		"<|im_start|>user\nread a.go<|im_end|>\n" +
		"<|im_start|>assistant\n<think>ok</think>\n<tool_call>{\"name\":\"read\",\"arguments\":{\"path\":\"a.go\"}}</tool_call><|im_end|>\n" +
		"<|im_start|>tool\npackage a<|im_end|>\n" +
		"<|im_start|>assistant\n"
	if got := RenderPrompt(req); got != want {
		t.Errorf("RenderPrompt:\n%s\nwant:\n%s", got, want)
	}
	if got, want := EstimateTokens(req), (len(want)+3)/4; got != want {
		t.Errorf("EstimateTokens = %d, want %d", got, want)
	}
}

// evaluated is how many prompt tokens a final line says were evaluated
// rather than cached, read back from prompt_eval_duration.
func evaluated(m api.Metrics) int { return int(m.PromptEvalDuration / promptTokenTime) }

// TestPromptCache checks the simulated prompt cache: prompt_eval_count is
// always the whole prompt; a request that extends the previous one
// evaluates only the new part, one that changes an early message evaluates
// (nearly) everything again.
func TestPromptCache(t *testing.T) {
	system := api.Message{Role: "system", Content: strings.Repeat("You are lathe, a careful coding assistant. ", 20)}
	first := api.ChatRequest{Model: "qwen3:8b", Messages: []api.Message{system, {Role: "user", Content: "Create test.txt"}}}
	extended := first
	extended.Messages = append(append([]api.Message(nil), first.Messages...),
		api.Message{Role: "assistant", Content: "Done."}, api.Message{Role: "user", Content: "Thanks"})
	changed := extended
	changed.Messages = append([]api.Message{{Role: "system", Content: "Different."}}, extended.Messages[1:]...)

	s := New(t)
	s.Script(Reply{Content: "Done."}, Reply{Content: "You're welcome."}, Reply{Content: "Hm."})
	c := newClient(t, s)
	var finals []api.Metrics
	for i, req := range []api.ChatRequest{first, extended, changed} {
		res := chat(t.Context(), c, &req)
		if res.err != nil || res.final == nil {
			t.Fatalf("request %d: err %v, done %v", i, res.err, res.final != nil)
		}
		if res.final.PromptEvalCount != EstimateTokens(req) {
			t.Errorf("request %d: prompt_eval_count %d, want the whole prompt, %d", i, res.final.PromptEvalCount, EstimateTokens(req))
		}
		finals = append(finals, res.final.Metrics)
	}
	if got := evaluated(finals[0]); got != EstimateTokens(first) {
		t.Errorf("first request evaluated %d tokens, want all %d", got, EstimateTokens(first))
	}
	wantExtended := EstimateTokens(extended) - len(RenderPrompt(first))/4
	if got := evaluated(finals[1]); got != wantExtended || got > 20 {
		t.Errorf("extended request evaluated %d tokens, want only the new part, %d", got, wantExtended)
	}
	if got := evaluated(finals[2]); got < EstimateTokens(changed)-5 {
		t.Errorf("changed request evaluated %d tokens, want nearly the whole prompt, %d", got, EstimateTokens(changed))
	}
}

func TestPromptCacheResets(t *testing.T) {
	req := api.ChatRequest{Model: "qwen3:8b", Messages: []api.Message{{Role: "user", Content: strings.Repeat("long prompt ", 50)}}}
	tests := []struct {
		name          string
		opts          []Option
		secondCtx     int
		wantEvaluated int // tokens the identical second request evaluates
		wantColdTwo   bool
	}{
		{"identical request evaluates one token", nil, 4096, 1, false},
		{"cache simulation off", []Option{WithoutCacheSimulation()}, 4096, EstimateTokens(req), false},
		{"new num_ctx reloads the model", nil, 8192, EstimateTokens(req), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, tt.opts...)
			s.Script(Reply{Content: "a"}, Reply{Content: "b"})
			c := newClient(t, s)
			r1, r2 := req, req
			r1.Options = map[string]any{"num_ctx": 4096}
			r2.Options = map[string]any{"num_ctx": tt.secondCtx}
			one, two := chat(t.Context(), c, &r1), chat(t.Context(), c, &r2)
			if one.final == nil || two.final == nil {
				t.Fatalf("errors %v, %v", one.err, two.err)
			}
			if got := evaluated(two.final.Metrics); got != tt.wantEvaluated || two.final.PromptEvalCount != EstimateTokens(req) {
				t.Errorf("second request: evaluated %d of %d, want %d of %d", got, two.final.PromptEvalCount, tt.wantEvaluated, EstimateTokens(req))
			}
			if cold := two.final.LoadDuration == coldLoad; cold != tt.wantColdTwo || one.final.LoadDuration != coldLoad {
				t.Errorf("load durations %v then %v; want a cold first load and cold second %v", one.final.LoadDuration, two.final.LoadDuration, tt.wantColdTwo)
			}
		})
	}
}

func TestSplitPieces(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello there! How can I help you today? 😊", []string{"Hello", " there", "!", " How", " can", " I", " help", " you", " today", "?", " 😊"}},
		{"2 + 2 = 4\n", []string{"2", " +", " 2", " =", " 4", "\n"}},
		{"authentication", []string{"authen", "ticati", "on"}},
		{"if x {\n    return\n}\n\n", []string{"if", " x", " {", "\n", "   ", " return", "\n", "}", "\n\n"}},
		{"héllo wörld", []string{"héllo", " wörld"}},
		{"a  ", []string{"a", "  "}},
		{"", nil},
	}
	for _, tt := range tests {
		got := SplitPieces(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("SplitPieces(%q) = %q, want %q", tt.in, got, tt.want)
		}
		for _, p := range got {
			if !utf8.ValidString(p) {
				t.Errorf("SplitPieces(%q): piece %q splits a UTF-8 sequence", tt.in, p)
			}
		}
	}
}

// TestThinkSwitchBreaksTheCache checks a think-dependent template: unset
// think renders as think:true on a thinking model, and a client that
// alternates think values (main requests unset, a side request false)
// misses the prompt cache right after the system prompt, twice, while one
// that keeps the same value reuses everything.
func TestThinkSwitchBreaksTheCache(t *testing.T) {
	system := api.Message{Role: "system", Content: strings.Repeat("You are lathe, a careful coding assistant. ", 40)}
	tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "read"}}}
	turn1 := api.ChatRequest{Model: "qwen3:8b", Tools: tools, Messages: []api.Message{system, {Role: "user", Content: "Create test.txt"}}}
	side := turn1
	side.Messages = append(append([]api.Message(nil), turn1.Messages...),
		api.Message{Role: "assistant", Content: "Done."}, api.Message{Role: "user", Content: "Title this conversation."})
	turn2 := turn1
	turn2.Messages = append(append([]api.Message(nil), turn1.Messages...),
		api.Message{Role: "assistant", Content: "Done."}, api.Message{Role: "user", Content: "Thanks"})
	thinking := func(m Model) Model { m.Capabilities = []string{CapCompletion, CapTools, CapThinking}; return m }
	tests := []struct {
		name      string
		model     Model
		sideThink *api.ThinkValue
		wantMiss  bool
	}{
		{"alternating think values miss", thinking(Model{Name: "qwen3:8b", ThinkSwitch: true}), &api.ThinkValue{Value: false}, true},
		{"the same value hits", thinking(Model{Name: "qwen3:8b", ThinkSwitch: true}), &api.ThinkValue{Value: true}, false},
		{"a template without the switch hits", thinking(Model{Name: "qwen3:8b"}), &api.ThinkValue{Value: false}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, WithModels(tt.model))
			s.Script(Reply{Content: "Done."}, Reply{Content: "Test file"}, Reply{Content: "You're welcome."})
			c := newClient(t, s)
			sideReq := side
			sideReq.Think = tt.sideThink
			var finals []api.Metrics
			for i, req := range []api.ChatRequest{turn1, sideReq, turn2} {
				res := chat(t.Context(), c, &req)
				if res.err != nil || res.final == nil {
					t.Fatalf("request %d: %v", i, res.err)
				}
				finals = append(finals, res.final.Metrics)
			}
			reqs := s.Requests()
			// Up to the end of the system prompt and the "/" that both
			// markers share, the prompts agree.
			shared := len(RenderPrompt(api.ChatRequest{Tools: tools, Messages: []api.Message{system}})) - len("<|im_end|>\n<|im_start|>assistant\n")
			sent := []api.ChatRequest{turn1, sideReq, turn2}
			for i := 1; i <= 2; i++ {
				common := commonPrefix(s.RenderPrompt(sent[i-1]), s.RenderPrompt(sent[i]))
				switch {
				case reqs[i].CachedTokens != common/4:
					t.Errorf("request %d: %d tokens cached, want the common prefix's %d", i, reqs[i].CachedTokens, common/4)
				case tt.wantMiss && common != shared+len("\n/"):
					t.Errorf("request %d: the prompts share %d bytes, want %d: up to the think marker", i, common, shared+len("\n/"))
				case !tt.wantMiss && common < shared+len("\n/no_think<|im_end|>\n<|im_start|>user\nCreate test.txt"):
					t.Errorf("request %d: the prompts share %d bytes, want more than the system block and first message", i, common)
				}
				if evaluated(finals[i]) != reqs[i].PromptTokens-reqs[i].CachedTokens {
					t.Errorf("request %d: prompt_eval_duration stands for %d tokens, want %d", i, evaluated(finals[i]), reqs[i].PromptTokens-reqs[i].CachedTokens)
				}
			}
		})
	}
}

func TestThinkSwitchRendering(t *testing.T) {
	s := New(t, WithModels(
		Model{Name: "thinky", Capabilities: []string{CapCompletion, CapTools, CapThinking}, ThinkSwitch: true},
		Model{Name: "plain", ThinkSwitch: true},
	))
	withSystem := api.ChatRequest{Model: "thinky", Messages: []api.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi"}}}
	noSystem := api.ChatRequest{Model: "thinky", Messages: []api.Message{{Role: "user", Content: "hi"}}}
	think := func(req api.ChatRequest, v any) api.ChatRequest {
		if v != nil {
			req.Think = &api.ThinkValue{Value: v}
		}
		return req
	}
	tests := []struct {
		name string
		req  api.ChatRequest
		want string
	}{
		{"unset means true", withSystem, "<|im_start|>system\nBe brief.\n/think<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"},
		{"true", think(withSystem, true), "<|im_start|>system\nBe brief.\n/think<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"},
		{"false", think(withSystem, false), "<|im_start|>system\nBe brief.\n/no_think<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"},
		{"no system message", think(noSystem, false), "<|im_start|>system\n/no_think<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"},
		{"no thinking capability", api.ChatRequest{Model: "plain", Messages: noSystem.Messages}, RenderPrompt(noSystem)},
	}
	for _, tt := range tests {
		if got := s.RenderPrompt(tt.req); got != tt.want {
			t.Errorf("%s: RenderPrompt\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
