package openai

import (
	"bytes"
	"encoding/json"
	"slices"

	oai "github.com/openai/openai-go/v3"

	"lathe/orchestrator/provider"
)

// maxCallBytes bounds what one reply's tool calls may take, arguments
// included: a server that streams arguments without end costs no more.
const maxCallBytes = 8 << 20

// callAssembler builds a reply's tool calls from their deltas. A call
// comes as deltas that share an index: the first usually carries the id
// and the name, the rest fragments of the arguments' JSON text, which are
// joined as they come. It tolerates what servers do besides: the whole
// call in one delta, the id or the name repeated on every delta, the
// whole arguments sent again once complete, and calls of different
// indexes interleaved; a delta with a new id and a name at an index whose
// call is complete starts another call (servers that give every call
// index 0). Calls past limit are counted and dropped as they come.
type callAssembler struct {
	calls []*partialCall
	byIdx map[int64]*partialCall
	size  int
	// limit is how many calls are kept (0: all); dropped counts the calls
	// past it, last is the index and id of the latest of them.
	limit   int
	dropped int
	last    struct {
		index int64
		id    string
	}
}

type partialCall struct {
	index    int64
	id, name string
	args     bytes.Buffer
}

// add takes one delta's calls; it reports false when the calls, the ones
// dropped included, grew past maxCallBytes.
func (a *callAssembler) add(deltas []oai.ChatCompletionChunkChoiceDeltaToolCall) bool {
	for _, d := range deltas {
		p := a.byIdx[d.Index]
		id, name, frag := d.ID, d.Function.Name, d.Function.Arguments
		a.size += len(id) + len(name)
		if p != nil && id != "" && p.id != "" && id != p.id && name != "" && complete(p.args.Bytes()) {
			p = nil // another call at the same index
		}
		if p == nil && a.limit > 0 && len(a.calls) >= a.limit {
			a.drop(d)
			a.size += len(frag)
			continue
		}
		if p == nil {
			if a.byIdx == nil {
				a.byIdx = map[int64]*partialCall{}
			}
			p = &partialCall{index: d.Index}
			a.byIdx[d.Index] = p
			a.calls = append(a.calls, p)
		}
		if p.id == "" {
			p.id = id
		}
		if p.name == "" {
			p.name = name
		}
		// The whole arguments again: compared before json.Valid reads
		// them, which on every fragment would cost each delta as much as
		// all that came before it. (args.String() would copy them.)
		if args := p.args.Bytes(); frag != "" && !(frag == string(args) && complete(args)) {
			p.args.WriteString(frag)
			a.size += len(frag)
		}
	}
	return a.size <= maxCallBytes
}

// drop counts d's call, past the limit, when d begins one: the first,
// one at an index past those dropped so far, or one with another id at
// the same index (servers that give every call index 0). Nothing of it
// is kept, and the deltas that follow at its index are not taken for a
// kept call's.
func (a *callAssembler) drop(d oai.ChatCompletionChunkChoiceDeltaToolCall) {
	if a.dropped == 0 || d.Index > a.last.index ||
		d.Index == a.last.index && d.ID != "" && a.last.id != "" && d.ID != a.last.id {
		a.dropped++
		a.last.index, a.last.id = d.Index, d.ID
	}
	delete(a.byIdx, d.Index)
}

// complete reports whether b is a whole JSON value.
func complete(b []byte) bool { return len(b) > 0 && json.Valid(b) }

// result is the calls in the order they began. Arguments that are not
// JSON (a call cut short, a model's slip) are kept as a JSON string of
// their text, for the tool to refuse with a message and the model to see;
// none are "{}".
func (a *callAssembler) result() []provider.ToolCall {
	out := make([]provider.ToolCall, 0, len(a.calls))
	for i, p := range a.calls {
		args := bytes.TrimSpace(p.args.Bytes())
		var raw json.RawMessage
		switch {
		case len(args) == 0:
			raw = json.RawMessage("{}")
		case json.Valid(args):
			raw = slices.Clone(args)
		default:
			raw, _ = json.Marshal(string(args))
		}
		out = append(out, provider.ToolCall{ID: p.id, Index: i, Name: p.name, Arguments: raw})
	}
	return out
}
