package ollama

import (
	"bytes"
	"slices"
	"sync"

	"github.com/ollama/ollama/api"

	"lathe/provider"
)

// wireCache keeps the wire form of the last request's messages and tools.
// Requests are append-only, so the next one starts with the same messages:
// only what was appended is translated, and a turn costs the same early and
// late in a long session.
type wireCache struct {
	mu    sync.Mutex
	in    []provider.Message // a copy: the caller may change its own slice
	out   []api.Message
	specs []provider.ToolSpec
	tools api.Tools
}

// messages translates in, reusing the translation of the longest prefix it
// shares with the last request.
func (w *wireCache) messages(in []provider.Message) []api.Message {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for n < len(in) && n < len(w.in) && sameMessage(in[n], w.in[n]) {
		n++
	}
	out := make([]api.Message, len(in))
	copy(out, w.out[:n])
	for i := n; i < len(in); i++ {
		out[i] = message(in[i])
	}
	w.in, w.out = slices.Clone(in), out
	return out
}

// toolsFor translates specs, or returns the last translation when they are
// the same.
func (w *wireCache) toolsFor(specs []provider.ToolSpec) api.Tools {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.EqualFunc(specs, w.specs, sameSpec) || (specs == nil) != (w.specs == nil) {
		w.specs, w.tools = slices.Clone(specs), tools(specs)
	}
	return w.tools
}

// sameMessage compares two messages; the strings and bytes of a message
// repeated from one request to the next are the same memory, which
// compares at once.
func sameMessage(a, b provider.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Thinking == b.Thinking &&
		a.ToolName == b.ToolName && a.ToolCallID == b.ToolCallID &&
		slices.EqualFunc(a.ToolCalls, b.ToolCalls, func(x, y provider.ToolCall) bool {
			return x.ID == y.ID && x.Index == y.Index && x.Name == y.Name && bytes.Equal(x.Arguments, y.Arguments)
		}) &&
		slices.EqualFunc(a.Images, b.Images, func(x, y provider.Image) bool { return bytes.Equal(x.Data, y.Data) })
}

func sameSpec(a, b provider.ToolSpec) bool {
	return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
}
