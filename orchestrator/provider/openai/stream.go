package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
)

// params is the wire form of req. Everything but the messages is the same
// value for every request of a session, so requests stay append-only and
// a server's prefix cache (llama.cpp's cache_prompt, vLLM's prefix
// caching) holds from one turn to the next.
func (c *Client) params(req *provider.Request) (oai.ChatCompletionNewParams, int) {
	msgs, prefix := c.wire.Messages(req.Messages)
	p := oai.ChatCompletionNewParams{
		Model:         req.Model.Name,
		Messages:      msgs,
		Tools:         c.wire.ToolsFor(req.Tools),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	o := c.opts.Options
	switch {
	case req.MaxTokens > 0:
		p.MaxTokens = oai.Int(int64(req.MaxTokens))
	case o.NumPredict != nil && *o.NumPredict > 0:
		p.MaxTokens = oai.Int(int64(*o.NumPredict))
	}
	if o.Temperature != nil {
		p.Temperature = oai.Float(*o.Temperature)
	}
	if o.TopP != nil {
		p.TopP = oai.Float(*o.TopP)
	}
	if o.Seed != nil {
		p.Seed = oai.Int(int64(*o.Seed))
	}
	if o.PresencePenalty != nil {
		p.PresencePenalty = oai.Float(*o.PresencePenalty)
	}
	if o.FrequencyPenalty != nil {
		p.FrequencyPenalty = oai.Float(*o.FrequencyPenalty)
	}
	if o.Stop != nil && len(*o.Stop) > 0 {
		p.Stop = oai.ChatCompletionNewParamsStopUnion{OfStringArray: *o.Stop}
	}
	if len(req.Format) > 0 {
		var schema map[string]any
		if json.Unmarshal(req.Format, &schema) == nil {
			p.ResponseFormat = oai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "reply", Schema: schema}}}
		}
	}
	// What the OpenAI API has no name for, llama.cpp, vLLM and SGLang
	// take under these: the sampler's top_k and min_p, and the chat
	// template's switch for a thinking model's reasoning.
	extra := map[string]any{}
	if o.TopK != nil {
		extra["top_k"] = *o.TopK
	}
	if o.MinP != nil {
		extra["min_p"] = *o.MinP
	}
	if req.Think != nil {
		extra["chat_template_kwargs"] = map[string]any{"enable_thinking": *req.Think}
	}
	if len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	return p, prefix
}

// reply is what Chat gathered of one streamed reply.
type reply struct {
	calls   callAssembler
	finish  string // the finish_reason, "" until one came
	usage   *oai.CompletionUsage
	timings timings
	chunks  int
	// text is the bytes of content and reasoning so far; over maxText,
	// the reply is refused.
	text, maxText int
	tooLarge      error
	tokens        int  // deltas of text and reasoning: a token each on llama.cpp and Ollama, more on others
	limit         int  // the most tokens the reply can have without the server shifting its context; 0: unknown
	shifted       bool // it had more: the server dropped the start of the context to go on
}

// bytesPerToken is what one token of a reply may take, generously: a
// reply's content and reasoning together are bounded by the window's
// worth of them (a reply cannot be longer than the window), as its tool
// calls are by maxCallBytes. A server that streams text without end
// costs no more.
const bytesPerToken = 32

// maxText is how many bytes of text a reply to req may hold.
func maxText(req *provider.Request) int {
	n := req.Model.NumCtx
	if n <= 0 {
		n = 32768
	}
	return max(n, 8192) * bytesPerToken
}

// timings are llama.cpp's own measures of a reply, sent with its last
// chunk.
type timings struct {
	CacheN      int     `json:"cache_n"`
	PromptN     int     `json:"prompt_n"`
	PromptMS    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
	set         bool
}

// Chat implements provider.Provider. Content and reasoning go to fn as
// they come; the tool calls, assembled from their deltas, come with the
// Done chunk, which is sent once the stream ends (those past
// req.MaxToolCalls dropped as they come, counted in DroppedCalls). A
// stream that ends without a finish_reason is a failure, not an answer,
// as Ollama's missing done line is; so is one whose text or calls outgrow
// their bounds. Reading stops as soon as ctx is done.
func (c *Client) Chat(ctx context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	params, prefix := c.params(req)
	start := time.Now()
	stream := c.chat.NewStreaming(ctx, params)
	defer stream.Close()
	window := req.Model.ServerWindow
	if c.kind() == KindOllama {
		window = cmp.Or(c.ollamaWindow(ctx, req.Model.Name), window)
	}
	r := reply{calls: callAssembler{limit: req.MaxToolCalls}, maxText: maxText(req), limit: c.shiftLimit(req, prefix, window)}
	for ctx.Err() == nil && stream.Next() {
		if err := c.chunk(&r, stream.Current(), fn); err != nil {
			return err
		}
		if r.tooLarge != nil {
			return r.tooLarge
		}
		if r.shifted {
			// The server went on past its window, dropping the start of
			// the context (Ollama's /v1 has no shift:false): stop reading,
			// as though it had stopped there.
			return fn(provider.Chunk{Done: true, DoneReason: "length", Metrics: provider.Metrics{
				PromptTokens: window - r.limit, CompletionTokens: r.tokens, Shifted: true,
				TotalDuration: time.Since(start)}})
		}
	}
	err := stream.Err()
	var long *eventTooLong
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &long):
		return provider.Errorf(provider.ErrStreamBroken, err,
			"the reply from %s sent an event of more than %s: the server was stopped from sending more", c.base, human.Bytes(long.limit))
	case err != nil && r.finish == "":
		return c.chatFailure(err, req.Model.Name, r.chunks > 0)
	case r.finish == "":
		return provider.Errorf(provider.ErrStreamBroken, nil,
			"the reply from %s stopped before it was complete (the stream ended without a finish_reason); try again", c.base)
	}
	done := provider.Chunk{Done: true, DoneReason: doneReason(r.finish), ToolCalls: r.calls.result(),
		DroppedCalls: r.calls.dropped, Metrics: c.metrics(&r, time.Since(start))}
	m := &done.Metrics
	m.Truncated = c.truncated(req, prefix, m.PromptTokens)
	if window == 0 && c.kind() == KindOllama { // loaded by this request: the window it runs with is known now
		window = c.ollamaWindow(ctx, req.Model.Name)
	}
	if w := window; w > 0 && m.PromptTokens > 0 {
		// A prompt counted at the window exactly was cut to fit it (a
		// server refuses a longer one, or cuts it: Ollama's /v1); prompt
		// and reply past the window had the context shifted.
		m.Truncated = m.Truncated || m.PromptTokens >= w
		m.Shifted = m.PromptTokens+m.CompletionTokens > w
	}
	return fn(done)
}

// shiftLimit is the most tokens a reply to req can have before it runs
// past the server's window: the window less the previous prompt's count,
// which this one, appended to it, is at least; 0 when the window is not
// known.
func (c *Client) shiftLimit(req *provider.Request, prefix, w int) int {
	if w == 0 {
		return 0
	}
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	if last.messages > 0 && prefix >= last.messages && len(req.Messages) > last.messages {
		return max(w-last.tokens, 1)
	}
	return w
}

// chunk takes one streamed chunk.
func (c *Client) chunk(r *reply, ch oai.ChatCompletionChunk, fn func(provider.Chunk) error) error {
	r.chunks++
	if ch.JSON.Usage.Valid() {
		u := ch.Usage
		r.usage = &u
	}
	if t, ok := ch.JSON.ExtraFields["timings"]; ok && json.Unmarshal([]byte(t.Raw()), &r.timings) == nil {
		r.timings.set = true
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue // lathe asks for one choice
		}
		d := choice.Delta
		out := provider.Chunk{Content: d.Content, Thinking: reasoning(d)}
		if len(d.ToolCalls) > 0 && !r.calls.add(d.ToolCalls) {
			r.tooLarge = provider.Errorf(provider.ErrStreamBroken, nil,
				"the reply's tool calls grew past %d MB: the server was stopped from sending more", maxCallBytes>>20)
			return nil
		}
		if r.text += len(out.Content) + len(out.Thinking); r.text > r.maxText {
			r.tooLarge = provider.Errorf(provider.ErrStreamBroken, nil,
				"the reply's text grew past %s, more than its window allows: the server was stopped from sending more",
				human.Bytes(int64(r.maxText)))
			return nil
		}
		if choice.FinishReason != "" {
			r.finish = choice.FinishReason
		}
		if out.Content != "" || out.Thinking != "" {
			if err := fn(out); err != nil {
				return err
			}
			if r.tokens++; r.limit > 0 && r.tokens > r.limit && r.finish == "" {
				r.shifted = true
				return nil
			}
		}
	}
	return nil
}

// reasoning is a delta's reasoning text: "reasoning_content" (llama.cpp,
// SGLang, older vLLM) or "reasoning" (vLLM since late 2025).
func reasoning(d oai.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		if f, ok := d.JSON.ExtraFields[key]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
				return s
			}
		}
	}
	return ""
}

// doneReason maps a finish_reason onto Ollama's done_reason words, which
// the agent reads: "tool_calls" is a stop.
func doneReason(finish string) string {
	switch finish {
	case "tool_calls", "function_call", "stop", "eos":
		return "stop"
	}
	return finish
}

// metrics are what the reply's usage (and llama.cpp's timings) said.
func (c *Client) metrics(r *reply, total time.Duration) provider.Metrics {
	m := provider.Metrics{TotalDuration: total}
	if u := r.usage; u != nil {
		m.PromptTokens, m.CompletionTokens = int(u.PromptTokens), int(u.CompletionTokens)
		if u.JSON.PromptTokensDetails.Valid() && u.PromptTokensDetails.JSON.CachedTokens.Valid() {
			m.CachedTokens, m.CachedReported = int(u.PromptTokensDetails.CachedTokens), true
		}
	}
	if t := r.timings; t.set {
		m.PromptDuration = time.Duration(t.PromptMS * float64(time.Millisecond))
		m.EvalDuration = time.Duration(t.PredictedMS * float64(time.Millisecond))
		if t.PredictedN > 0 {
			// The first token is free: it comes from the logits of the
			// prompt's last batch, and predicted_ms times the n−1 steps
			// after it (server-common.h, n_gen_steps).
			m.UntimedTokens = 1
		}
		if !m.CachedReported {
			m.CachedTokens, m.CachedReported = t.CacheN, true
		}
	}
	return m
}

// lastPrompt is what the previous request sent and what the server said
// of it.
type lastPrompt struct {
	messages int // how many messages it had
	tokens   int // its prompt_tokens
}

// truncated reports whether the server cut the prompt silently: this
// request starts with every message of the previous one (prefix of them
// are the same) and adds more, yet the server counts no more prompt
// tokens than it did then (fewer: LM Studio's policy; the same, pinned
// at its window: Ollama's). Servers without an equivalent of Ollama's truncate:false (LM
// Studio's context overflow policies, a proxy) do that.
func (c *Client) truncated(req *provider.Request, prefix, prompt int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.last
	c.last = lastPrompt{messages: len(req.Messages), tokens: prompt}
	return prompt > 0 && last.tokens > 0 && last.messages > 0 && prefix >= last.messages &&
		len(req.Messages) > last.messages && prompt <= last.tokens
}
