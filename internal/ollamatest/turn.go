package ollamatest

import (
	"cmp"
	"encoding/json"
)

// turn is a reply cut into the lines the server streams.
type turn struct {
	chunks     []wireMessage // the done:false lines' messages
	costs      []int         // tokens each chunk stands for
	final      wireMessage   // the done:true line's message
	finalCost  int
	doneReason string
	evalCount  int
}

// plan cuts reply into chunks: thinking pieces, content pieces, then the tool
// calls as reply.Calls says. A positive numPredict cuts the turn after that
// many tokens, with done_reason "length"; calls that do not fit are dropped.
func (s *Server) plan(reply Reply, numPredict int, density float64) turn {
	var t turn
	for _, p := range SplitTokens(reply.Thinking, density) {
		t.add(wireMessage{Role: "assistant", Thinking: p}, 1)
	}
	for _, p := range SplitTokens(reply.Content, density) {
		t.add(wireMessage{Role: "assistant", Content: p}, 1)
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
	t.doneReason = "stop"
	if t.cut(numPredict) {
		t.doneReason = "length"
	}
	t.doneReason = cmp.Or(reply.DoneReason, t.doneReason)
	t.evalCount = cmp.Or(reply.EvalCount, max(1, sum(t.costs)+t.finalCost))
	return t
}

func (t *turn) add(m wireMessage, cost int) {
	t.chunks = append(t.chunks, m)
	t.costs = append(t.costs, cost)
}

// cut keeps what fits in limit tokens and reports whether anything was cut.
func (t *turn) cut(limit int) bool {
	if limit <= 0 {
		return false
	}
	used := 0
	for i, cost := range t.costs {
		if used+cost > limit {
			t.chunks, t.costs = t.chunks[:i], t.costs[:i]
			t.final.ToolCalls, t.finalCost = nil, 0
			return true
		}
		used += cost
	}
	if used+t.finalCost > limit {
		t.final.ToolCalls, t.finalCost = nil, 0
		return true
	}
	return false
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
