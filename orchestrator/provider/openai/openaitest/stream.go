package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// usage is what the usage chunk reports of the prompt, for request index.
type usage struct{ prompt, cached, index int }

// event is one streamed chunk: its choice's delta and finish_reason, or
// (choices empty) the usage.
type event struct {
	delta  map[string]any
	finish string
}

// stream writes reply as server-sent events, within room tokens.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req chatRequest, reply ollamatest.Reply, u usage, room int) {
	events, completion, finish := s.plan(reply, room)
	if over := u.prompt + completion - s.window(req); s.kind == Ollama && over > 0 {
		s.requests.Update(u.index, func(r *Request) { r.Shifts = 1 + over/max(s.window(req)/2, 1) })
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	id := fmt.Sprintf("chatcmpl-%08d", len(req.api.Messages))
	failing := reply.ErrorLine != "" || reply.Drop || reply.Hang
	for i, ev := range events {
		if failing && i == reply.AfterChunks {
			s.failStream(w, r, reply)
			return
		}
		if err := s.write(w, s.chunk(id, req, ev)); err != nil {
			return
		}
		_ = rc.Flush()
	}
	if failing {
		s.failStream(w, r, reply)
		return
	}
	if finish != NoFinish {
		last := s.chunk(id, req, event{delta: s.finishDelta(), finish: finish})
		if reply.Calls == ollamatest.CallsOnDone {
			last["choices"].([]any)[0].(map[string]any)["delta"] = map[string]any{"tool_calls": s.wholeCalls(reply)}
		}
		if !req.includeUsage {
			s.timings(last, u, completion)
		}
		_ = s.write(w, last)
	}
	if req.includeUsage && finish != NoFinish {
		uc := s.chunk(id, req, event{})
		uc["choices"] = []any{}
		details := any(map[string]any{"cached_tokens": u.cached})
		if s.kind == VLLM {
			details = nil // vLLM reports it only with --enable-prompt-tokens-details
		}
		usage := map[string]any{"prompt_tokens": u.prompt, "completion_tokens": completion,
			"total_tokens": u.prompt + completion, "prompt_tokens_details": details}
		if s.kind == Ollama {
			delete(usage, "prompt_tokens_details")
		}
		uc["usage"] = usage
		s.timings(uc, u, completion)
		_ = s.write(w, uc)
	}
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	_ = rc.Flush()
}

// timings adds llama.cpp's timings to its last chunk: a prompt token
// read in 0.5 ms, a token decoded in 20 ms. As llama.cpp times them, the
// reply's first token is free (it comes from the logits of the prompt's
// last batch): predicted_ms covers n−1 decode steps, and
// predicted_per_second is n−1 over it.
func (s *Server) timings(c map[string]any, u usage, completion int) {
	if s.kind != LlamaCpp {
		return
	}
	prompt := u.prompt - u.cached
	steps := max(completion-1, 0)
	t := map[string]any{"cache_n": u.cached, "prompt_n": prompt, "prompt_ms": float64(prompt) * 0.5,
		"predicted_n": completion, "predicted_ms": float64(steps) * DecodeMS}
	if prompt > 0 {
		t["prompt_per_second"] = 1e3 / 0.5
	}
	if steps > 0 {
		t["predicted_per_second"] = 1e3 / DecodeMS
	}
	c["timings"] = t
}

// DecodeMS is how long the fake llama.cpp takes to decode a token.
const DecodeMS = 20.0

func (s *Server) write(w http.ResponseWriter, chunk map[string]any) error {
	var b bytes.Buffer
	b.WriteString("data: ")
	_ = json.NewEncoder(&b).Encode(chunk) // ends with "\n"
	b.WriteString("\n")
	_, err := w.Write(b.Bytes())
	return err
}

// failStream ends the stream as reply says.
func (s *Server) failStream(w http.ResponseWriter, r *http.Request, reply ollamatest.Reply) {
	switch {
	case reply.ErrorLine != "":
		_ = s.write(w, map[string]any{"error": map[string]any{"code": 500, "message": reply.ErrorLine, "type": "server_error"}})
		_ = http.NewResponseController(w).Flush()
	case reply.Drop:
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	case reply.Hang:
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
	}
}

// chunk is a chat.completion.chunk carrying ev, in the kind's shape.
func (s *Server) chunk(id string, req chatRequest, ev event) map[string]any {
	choice := map[string]any{"index": 0, "delta": ev.delta, "finish_reason": nil}
	if ev.finish != "" {
		choice["finish_reason"] = ev.finish
	}
	c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.api.Model,
		"choices": []any{choice}}
	switch s.kind {
	case LlamaCpp:
		c["system_fingerprint"] = "b7100-1a2b3c4d"
	case Ollama:
		c["system_fingerprint"] = "fp_ollama"
	case VLLM:
		choice["logprobs"] = nil
		if ev.finish != "" {
			choice["stop_reason"] = nil
		}
	}
	return c
}

// window is the window req's model runs with.
func (s *Server) window(req chatRequest) int {
	m, _ := s.model(req.api.Model)
	return m.Window
}

func (s *Server) finishDelta() map[string]any {
	if s.kind == VLLM {
		return map[string]any{"content": ""}
	}
	return map[string]any{}
}

// plan cuts reply into the events before the finish chunk, and says how
// many tokens they hold and the finish_reason, within room tokens.
func (s *Server) plan(reply ollamatest.Reply, room int) (events []event, tokens int, finish string) {
	first := map[string]any{"role": "assistant", "content": nil}
	if s.kind == VLLM {
		first["content"] = ""
	}
	events = append(events, event{delta: first})
	think := "reasoning_content"
	if s.kind == VLLM {
		think = "reasoning"
	}
	add := func(key, piece string) bool {
		if tokens >= room {
			return false
		}
		events = append(events, event{delta: map[string]any{key: piece}})
		tokens++
		return true
	}
	for _, p := range ollamatest.SplitPieces(reply.Thinking) {
		if !add(think, p) {
			return events, tokens, "length"
		}
	}
	for _, p := range ollamatest.SplitPieces(reply.Content) {
		if !add("content", p) {
			return events, tokens, "length"
		}
	}
	for reply.Endless {
		for _, p := range ollamatest.SplitPieces(reply.Content + reply.Thinking) {
			if !add("content", p) {
				return events, tokens, "length"
			}
		}
	}
	calls, cost := s.callEvents(reply)
	if tokens+cost > room {
		return events, room, "length"
	}
	events = append(events, calls...)
	tokens += cost
	finish = "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if reply.DoneReason != "" {
		finish = reply.DoneReason
	}
	if reply.EvalCount > 0 {
		tokens = reply.EvalCount
	}
	return events, tokens, finish
}

// fragment is how many bytes of arguments one delta carries.
const fragment = 7

// callEvents are the deltas of reply's calls, and the tokens they hold.
func (s *Server) callEvents(reply ollamatest.Reply) ([]event, int) {
	calls := s.callIDs(reply)
	cost := 0
	for _, c := range calls {
		cost += (len(c.name) + len(c.args) + 3) / 4
	}
	if reply.Calls == ollamatest.CallsOnDone {
		return nil, cost
	}
	// Each call: a head (index, id, type, name), then its fragments.
	var seqs [][]map[string]any
	for i, c := range calls {
		head := map[string]any{"index": i, "type": "function", "function": map[string]any{"name": c.name}}
		if s.kind == LlamaCpp {
			head["function"].(map[string]any)["arguments"] = ""
		}
		if c.id != "" {
			head["id"] = c.id
		}
		seq := []map[string]any{head}
		for off := 0; off < len(c.args); off += fragment {
			d := map[string]any{"index": i, "function": map[string]any{"arguments": c.args[off:min(off+fragment, len(c.args))]}}
			if reply.CallFormat == ollamatest.CallFormatHarmony {
				d["id"], d["type"] = c.id, "function"
				d["function"].(map[string]any)["name"] = c.name
			}
			seq = append(seq, d)
		}
		seqs = append(seqs, seq)
	}
	var out []event
	delta := func(d map[string]any) { out = append(out, event{delta: map[string]any{"tool_calls": []any{d}}}) }
	if reply.Calls == ollamatest.CallsTogether {
		for step := 0; ; step++ {
			any := false
			for _, seq := range seqs {
				if step < len(seq) {
					delta(seq[step])
					any = true
				}
			}
			if !any {
				break
			}
		}
		return out, cost
	}
	for _, seq := range seqs {
		for _, d := range seq {
			delta(d)
		}
	}
	return out, cost
}

type wireCall struct{ id, name, args string }

// callIDs gives reply's calls their ids and compact arguments.
func (s *Server) callIDs(reply ollamatest.Reply) []wireCall {
	var out []wireCall
	for _, c := range reply.ToolCalls {
		var b bytes.Buffer
		if len(c.Arguments) == 0 || json.Compact(&b, c.Arguments) != nil {
			b.Reset()
			b.WriteString("{}")
		}
		id := c.ID
		if id == "" && reply.CallFormat != ollamatest.CallFormatLegacy {
			s.mu.Lock()
			s.ids++
			id = fmt.Sprintf("call_%06d", s.ids)
			if s.kind == VLLM {
				id = fmt.Sprintf("chatcmpl-tool-%06d", s.ids)
			}
			s.mu.Unlock()
		}
		out = append(out, wireCall{id: id, name: c.Name, args: b.String()})
	}
	return out
}

// wholeCalls are reply's calls, each whole, for CallsOnDone.
func (s *Server) wholeCalls(reply ollamatest.Reply) []any {
	var out []any
	for i, c := range s.callIDs(reply) {
		d := map[string]any{"index": i, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}}
		if c.id != "" {
			d["id"] = c.id
		}
		out = append(out, d)
	}
	return out
}
