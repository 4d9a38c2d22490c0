package ollamatest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
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
// real templates ignore them).
func RenderPrompt(req api.ChatRequest) string {
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
	for _, m := range req.Messages {
		renderMessage(&b, m)
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

func renderMessage(b *strings.Builder, m api.Message) {
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
	b.WriteString("<|im_end|>\n")
}

// EstimateTokens is the fake's token count of a request's prompt: the bytes of
// RenderPrompt(req) divided by 4, rounded up. It is what truncate:false
// compares with num_ctx and what prompt_eval_count reports.
func EstimateTokens(req api.ChatRequest) int {
	return tokensOf(len(RenderPrompt(req)))
}

func tokensOf(bytes int) int { return (bytes + 3) / 4 }

// promptEval returns a prompt's prompt_eval_count and how many of its
// tokens are evaluated rather than taken from Ollama's prompt cache. As in
// both of Ollama's runners, the count is the whole prompt, cached tokens
// included (num_ctx when the prompt was silently truncated); the cache only
// shows in prompt_eval_duration. With the cache, only the tokens after the
// longest common byte prefix with the previous prompt of the same loaded
// model are evaluated, at least 1; cached tokens are the prefix's bytes / 4,
// rounded down.
func promptEval(cached, prompt string, numCtx int, cache bool) (count, evaluated int) {
	total := tokensOf(len(prompt))
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
	return total, max(1, total-common/4)
}
