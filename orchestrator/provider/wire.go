package provider

import (
	"bytes"
	"slices"
	"sync"
)

// WireCache keeps a backend's wire form of the last request's messages and
// tools. Requests are append-only, so the next one starts with the same
// messages: only what was appended is translated, and a turn costs the same
// early and late in a long session. Message and Tools translate; they must
// be set before use.
type WireCache[M, T any] struct {
	Message func(Message) M
	Tools   func([]ToolSpec) T

	mu    sync.Mutex
	in    []Message // a copy: the caller may change its own slice
	out   []M
	specs []ToolSpec
	tools T
}

// Messages translates in, reusing the translation of the longest prefix it
// shares with the last request; reused is that prefix's length.
func (w *WireCache[M, T]) Messages(in []Message) (out []M, reused int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for reused < len(in) && reused < len(w.in) && sameMessage(in[reused], w.in[reused]) {
		reused++
	}
	out = make([]M, len(in))
	copy(out, w.out[:reused])
	for i := reused; i < len(in); i++ {
		out[i] = w.Message(in[i])
	}
	w.in, w.out = slices.Clone(in), out
	return out, reused
}

// ToolsFor translates specs, or returns the last translation when they are
// the same.
func (w *WireCache[M, T]) ToolsFor(specs []ToolSpec) T {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.EqualFunc(specs, w.specs, sameSpec) || (specs == nil) != (w.specs == nil) {
		w.specs, w.tools = slices.Clone(specs), w.Tools(specs)
	}
	return w.tools
}

// sameMessage compares two messages; the strings and bytes of a message
// repeated from one request to the next are the same memory, which
// compares at once.
func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Thinking == b.Thinking &&
		a.ToolName == b.ToolName && a.ToolCallID == b.ToolCallID &&
		slices.EqualFunc(a.ToolCalls, b.ToolCalls, func(x, y ToolCall) bool {
			return x.ID == y.ID && x.Index == y.Index && x.Name == y.Name && bytes.Equal(x.Arguments, y.Arguments)
		}) &&
		slices.EqualFunc(a.Images, b.Images, func(x, y Image) bool { return bytes.Equal(x.Data, y.Data) })
}

func sameSpec(a, b ToolSpec) bool {
	return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
}
