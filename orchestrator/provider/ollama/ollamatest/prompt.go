package ollamatest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// RenderPrompt renders a chat request as the fake's chat template does, a
// ChatML-like text (the layout qwen models use):
//
//	<|im_start|>tools\n{tool JSON}\n...<|im_end|>\n        (only with tools)
//	<|im_start|>ROLE\n<think>THINKING</think>\nCONTENT[img-0]...
//	<tool_call>{"name":...,"arguments":{...}}</tool_call>...<|im_end|>\n
//	...one block per message...
//	<|im_start|>assistant\n
//
// Tool call ids and indexes, tool_name and tool_call_id are not rendered (most
// real templates ignore them). A model with Model.ThinkSwitch renders more;
// see Server.RenderPrompt.
func RenderPrompt(req api.ChatRequest) string {
	return renderPrompt(req, "")
}

// renderPrompt renders req, ending the system block with "\n"+marker when
// marker is set (a block of its own when req has no system message).
func renderPrompt(req api.ChatRequest, marker string) string {
	var b strings.Builder
	if len(req.Tools) > 0 {
		b.WriteString("<|im_start|>tools\n")
		for _, tool := range req.Tools {
			js, _ := json.Marshal(tool)
			b.Write(js)
			b.WriteByte('\n')
		}
		b.WriteString("<|im_end|>\n")
	}
	hasSystem := slices.ContainsFunc(req.Messages, func(m api.Message) bool { return m.Role == "system" })
	if marker != "" && !hasSystem {
		b.WriteString("<|im_start|>system\n" + marker + "<|im_end|>\n")
	}
	for _, m := range req.Messages {
		suffix := ""
		if marker != "" && m.Role == "system" {
			suffix, marker = "\n"+marker, ""
		}
		renderMessage(&b, m, suffix)
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

func renderMessage(b *strings.Builder, m api.Message, suffix string) {
	b.WriteString("<|im_start|>" + m.Role + "\n")
	if m.Thinking != "" {
		b.WriteString("<think>" + m.Thinking + "</think>\n")
	}
	b.WriteString(m.Content)
	for i := range m.Images {
		fmt.Fprintf(b, "[img-%d]", i)
	}
	for _, c := range m.ToolCalls {
		js, _ := json.Marshal(struct {
			Name      string                        `json:"name"`
			Arguments api.ToolCallFunctionArguments `json:"arguments"`
		}{c.Function.Name, c.Function.Arguments})
		b.WriteString("<tool_call>")
		b.Write(js)
		b.WriteString("</tool_call>")
	}
	b.WriteString(suffix + "<|im_end|>\n")
}

// EstimateTokens is the fake's token count of a request's prompt: the bytes of
// RenderPrompt(req) divided by 4, rounded up. It is what truncate:false
// compares with num_ctx and what prompt_eval_count reports.
func EstimateTokens(req api.ChatRequest) int {
	return tokensOf(len(RenderPrompt(req)))
}

func tokensOf(bytes int) int { return (bytes + 3) / 4 }

// promptEval returns a prompt's prompt_eval_count and how many of its
// tokens are evaluated rather than taken from Ollama's prompt cache, at
// density b. As in both of Ollama's runners, the count is the whole prompt,
// cached tokens included (num_ctx when the prompt was silently truncated);
// the cache only shows in prompt_eval_duration. With the cache, only the
// tokens after the longest common byte prefix with the previous prompt of
// the same loaded model are evaluated, at least 1; cached tokens are the
// whole tokens in that prefix (its bytes / 4, rounded down, by default).
func promptEval(cached, prompt string, numCtx int, cache bool, b, dense float64) (count, evaluated int) {
	total := CountTokens(prompt, b, dense)
	switch {
	case total > numCtx:
		return numCtx, numCtx
	case !cache:
		return total, total
	}
	common := 0
	for common < len(cached) && common < len(prompt) && cached[common] == prompt[common] {
		common++
	}
	return total, max(1, total-WholeTokens(prompt[:common], b, dense))
}

// RenderPrompt renders req as the server renders it for req's model: as the
// package's RenderPrompt does, except for a model with both the thinking
// capability and Model.ThinkSwitch, whose system block ends with "\n/think"
// or "\n/no_think" by the resolved think value (see Model.ThinkSwitch). An
// unknown model renders as the package's RenderPrompt.
func (s *Server) RenderPrompt(req api.ChatRequest) string {
	e, ok := s.lookup(model.ParseName(req.Model))
	if !ok {
		return RenderPrompt(req)
	}
	return s.render(req, e)
}

// EstimateTokens counts req's prompt as the server counts it for req's model
// (its rendering and its tokenizer's density, see WithBytesPerToken), before
// any truncation: what truncate:false compares with num_ctx. For an unknown
// model it is the package's EstimateTokens.
func (s *Server) EstimateTokens(req api.ChatRequest) int {
	e, ok := s.lookup(model.ParseName(req.Model))
	if !ok {
		return EstimateTokens(req)
	}
	return CountTokens(s.render(req, e), s.density(e), e.DenseBytesPerToken)
}

// render renders req for model e.
func (s *Server) render(req api.ChatRequest, e entry) string {
	if !e.ThinkSwitch || !e.has(CapThinking) {
		return RenderPrompt(req)
	}
	// ChatHandler: a thinking model with think unset thinks.
	if req.Think == nil || req.Think.Bool() {
		return renderPrompt(req, "/think")
	}
	return renderPrompt(req, "/no_think")
}

// density is model e's bytes a token; 0 means the fixed rule.
func (s *Server) density(e entry) float64 {
	return cmp.Or(e.BytesPerToken, s.cfg.bytesPerToken)
}
