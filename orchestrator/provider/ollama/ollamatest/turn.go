package ollamatest

import (
	"cmp"
	"encoding/json"
)

// turn is a reply cut into the lines the server streams, and where it ends.
type turn struct {
	chunks    []wireMessage // the done:false lines' messages
	costs     []int         // tokens each chunk stands for
	loop      []wireMessage // Endless: sent again and again after chunks, a token each
	final     wireMessage   // the done:true line's message
	finalCost int

	// Set by fit:
	sent       int // done:false lines sent, chunks then loop repeats
	doneReason string
	evalCount  int
	shifts     int  // context shifts the runner made
	repeatStop bool // the 30-repeat guard ended the stream: no done line
}

// limits are what ends a turn before the model does.
type limits struct {
	predict int  // num_predict as the runner applies it; 0: none
	window  int  // tokens left in the context window after the prompt
	shift   bool // the runner shifts the context when the window is full, rather than stop
	discard int  // tokens a context shift discards
	guard   bool // the runner's 30-repeat guard applies
}

// plan cuts reply into chunks: thinking pieces, content pieces, then the tool
// calls as reply.Calls says, at the model's token density; an Endless reply
// then loops over its content (or thinking) pieces. fit decides where it
// ends.
func (s *Server) plan(reply Reply, density float64) turn {
	var t turn
	for _, p := range SplitTokens(reply.Thinking, density) {
		t.add(wireMessage{Role: "assistant", Thinking: p}, 1)
	}
	first := len(t.chunks)
	for _, p := range SplitTokens(reply.Content, density) {
		t.add(wireMessage{Role: "assistant", Content: p}, 1)
	}
	if reply.Endless {
		t.loop = t.chunks[first:]
		if len(t.loop) == 0 {
			t.loop = t.chunks
		}
	}
	t.final = wireMessage{Role: "assistant"}
	calls, costs := s.wireCalls(reply, density)
	switch reply.Calls {
	case CallsTogether:
		if len(calls) > 0 {
			t.add(wireMessage{Role: "assistant", ToolCalls: calls}, sum(costs))
		}
	case CallsOnDone:
		t.final.ToolCalls, t.finalCost = calls, sum(costs)
	default:
		for i, c := range calls {
			t.add(wireMessage{Role: "assistant", ToolCalls: []wireToolCall{c}}, costs[i])
		}
	}
	return t
}

func (t *turn) add(m wireMessage, cost int) {
	t.chunks = append(t.chunks, m)
	t.costs = append(t.costs, cost)
}

// chunk returns the i-th done:false line's message and its tokens.
func (t *turn) chunk(i int) (wireMessage, int) {
	if i < len(t.chunks) {
		return t.chunks[i], t.costs[i]
	}
	return t.loop[(i-len(t.chunks))%len(t.loop)], 1
}

// fit runs the turn against lim without building it: how many lines go
// out, the done reason, eval_count and the context shifts. The turn ends
// when the model does (its last chunk), at the 30-repeat guard (then with
// no done line at all), or at num_predict or, under
// shift:false, a full window, both with done_reason "length" and
// eval_count at the limit, as the runner counts every token it generated;
// calls that did not fit are dropped. An Endless turn needs a limit
// (lim.predict, or the window under shift:false). reply's DoneReason and EvalCount override the result.
func (t *turn) fit(lim limits, reply Reply) {
	t.run(lim)
	t.shifts = lim.shiftsAfter(t.evalCount)
	t.doneReason = cmp.Or(reply.DoneReason, t.doneReason)
	t.evalCount = cmp.Or(reply.EvalCount, max(1, t.evalCount))
}

func (t *turn) run(lim limits) {
	limit := -1 // none
	if lim.predict > 0 {
		limit = lim.predict
	}
	if !lim.shift && (limit < 0 || lim.window < limit) {
		limit = max(lim.window, 0)
	}
	var g repeatGuard
	used, end := 0, len(t.chunks)
	for i := 0; t.loop != nil || i < end; i++ {
		m, cost := t.chunk(i)
		if lim.guard && g.stops(m) {
			t.sent, t.evalCount, t.repeatStop = i, used, true
			return
		}
		if limit >= 0 && used+cost > limit {
			t.cutAt(i, limit)
			return
		}
		used += cost
	}
	t.sent = end
	if limit >= 0 && used+t.finalCost > limit {
		t.cutAt(end, limit)
		return
	}
	t.doneReason, t.evalCount = "stop", used+t.finalCost
}

// cutAt ends the turn with done_reason "length" after sent lines and limit
// generated tokens; calls on the done line are dropped.
func (t *turn) cutAt(sent, limit int) {
	t.sent, t.doneReason, t.evalCount = sent, "length", limit
	t.final.ToolCalls, t.finalCost = nil, 0
}

// shiftsAfter is how many context shifts the runner makes generating eval
// tokens: the first when the window is full, then one each time the room a
// shift freed is used up again.
func (lim limits) shiftsAfter(eval int) int {
	if !lim.shift || eval <= lim.window {
		return 0
	}
	return 1 + (eval-max(lim.window, 0)-1)/lim.discard
}

// wireCalls renders reply's tool calls in its CallFormat, with the tokens
// each stands for (its JSON's bytes at density, by default / 4, rounded up).
// Arguments go through the server's ordered map, so they come out as a real
// server writes them.
func (s *Server) wireCalls(reply Reply, density float64) ([]wireToolCall, []int) {
	var calls []wireToolCall
	var costs []int
	for i, c := range reply.ToolCalls {
		args, _ := c.arguments() // checked by Validate
		raw, _ := json.Marshal(args)
		wc := wireToolCall{ID: c.ID, Function: wireFunction{Name: c.Name, Arguments: raw}}
		switch reply.CallFormat {
		case CallFormatLegacy:
		case CallFormatHarmony:
			wc.Function.Index = new(int)
		default:
			wc.Function.Index = &i
		}
		if wc.ID == "" && reply.CallFormat != CallFormatLegacy {
			wc.ID = s.newCallID()
		}
		calls = append(calls, wc)
		costs = append(costs, tokensAt(len(c.Name)+len(raw)+len(`{"name":"","arguments":}`), density))
	}
	return calls, costs
}

func sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
