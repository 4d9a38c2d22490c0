package ollamatest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
)

// Reply scripts one assistant turn, or one way for it to fail. Its JSON form
// (see LoadScript) uses the tags below; Func has none.
//
// A successful turn streams thinking chunks, then content chunks (both cut
// into pieces of a few characters, see SplitPieces), then the tool calls as
// Calls says, then the done:true line with DoneReason and the metrics.
//
// At most one failure mode may be set: Status (an HTTP error before any
// output), ErrorLine, Drop or Hang (each after AfterChunks done:false chunks).
//
// The script is what the model does: thinking and tool calls are sent even
// when the request said think:false or sent no tools. With stream:false the
// turn comes as one object (text concatenated, every call included).
type Reply struct {
	// Thinking is the reasoning text, sent in "thinking" chunks.
	Thinking string `json:"thinking,omitempty"`
	// Content is the answer text, sent in "content" chunks.
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls the model makes, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Calls says where the tool calls come; empty means CallsSeparate.
	Calls CallDelivery `json:"calls,omitempty"`
	// CallFormat says which server's call shape to copy; empty means
	// CallFormatCurrent.
	CallFormat CallFormat `json:"call_format,omitempty"`
	// DoneReason is the final line's done_reason; empty means "stop", or
	// "length" when the request's num_predict (10 × num_ctx when unset)
	// or, under shift:false, the context window cut the turn short.
	DoneReason string `json:"done_reason,omitempty"`
	// EvalCount, when non-zero, replaces the computed eval_count (one per
	// thinking or content chunk plus each call's token estimate).
	EvalCount int `json:"eval_count,omitempty"`
	// PromptEvalCount, when non-zero, replaces the simulated
	// prompt_eval_count.
	PromptEvalCount int `json:"prompt_eval_count,omitempty"`
	// Endless makes the model never stop: after Thinking and Content it
	// writes Content's chunks again and again (Thinking's, when Content is
	// empty), as a small model that never emits its end token does. The
	// turn then ends where a real one would: at num_predict (10 × num_ctx
	// when unset; also for num_predict 0, which a real runner leaves
	// unbounded, so that a test cannot hang), at the full window under
	// shift:false, at the 30-repeat guard (Content "a" loops on one
	// token), or with a failure mode. With shift unset it shifts the
	// context each time the window fills (Request.Shifts). Memory stays
	// bounded: chunks are made as they are sent. It takes no tool calls.
	Endless bool `json:"endless,omitempty"`

	// Status makes the server answer with this HTTP status (400 to 599) and
	// the JSON body {"error":Error} before any output.
	Status int `json:"status,omitempty"`
	// Error is the message sent with Status; empty means the status text.
	Error string `json:"error,omitempty"`
	// ErrorLine makes the stream end, after AfterChunks chunks, with the
	// line {"error":ErrorLine} and no done line (HTTP 200). As on a real
	// server, when no chunk went out first (AfterChunks 0, or an empty
	// turn), and with stream:false, it is an HTTP 500 with that error.
	ErrorLine string `json:"error_line,omitempty"`
	// Drop makes the server break the connection after AfterChunks chunks:
	// the chunked body ends without its last chunk, with no error line and
	// no done line. The official client returns nil for that.
	Drop bool `json:"drop,omitempty"`
	// Hang makes the server send AfterChunks chunks (none: not even the
	// headers) and then block until the client goes away or the test ends;
	// see Server.WaitHanging and Server.WaitCancelled.
	Hang bool `json:"hang,omitempty"`
	// AfterChunks is how many done:false chunks ErrorLine, Drop or Hang let
	// through first; more than the turn has means all of them.
	AfterChunks int `json:"after_chunks,omitempty"`

	// Func, when set, computes the reply from the request that consumes it;
	// the other fields are then ignored.
	Func func(req api.ChatRequest) Reply `json:"-"`
}

// ToolCall is one scripted tool call.
type ToolCall struct {
	// ID, when set, is sent as the call's id in every CallFormat; otherwise
	// the server makes one ("call_" and 8 characters) unless the format is
	// CallFormatLegacy.
	ID string `json:"id,omitempty"`
	// Name is the function name.
	Name string `json:"name"`
	// Arguments is a JSON object, sent with its keys in this order. Empty
	// means {}.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// CallDelivery says where a reply's tool calls come in the stream.
type CallDelivery string

const (
	// CallsSeparate sends each call in its own done:false chunk.
	CallsSeparate CallDelivery = "separate"
	// CallsTogether sends all calls in one done:false chunk.
	CallsTogether CallDelivery = "together"
	// CallsOnDone sends all calls on the done:true line, as gpt-oss
	// (harmony) and a call completed by the last token do.
	CallsOnDone CallDelivery = "done"
)

// CallFormat says which server's tool-call shape to copy.
type CallFormat string

const (
	// CallFormatCurrent is v0.17.x: an id "call_xxxxxxxx" and function.index
	// counted from 0.
	CallFormatCurrent CallFormat = "current"
	// CallFormatLegacy is servers before late 2025: no id and no index key.
	CallFormatLegacy CallFormat = "legacy"
	// CallFormatHarmony is gpt-oss: an id and index 0 on every call.
	CallFormatHarmony CallFormat = "harmony"
)

// Validate reports what is wrong with r, if anything.
func (r Reply) Validate() error {
	if r.Func != nil {
		return nil
	}
	var errs []error
	errs = append(errs, r.validateFailure())
	switch r.Calls {
	case "", CallsSeparate, CallsTogether, CallsOnDone:
	default:
		errs = append(errs, fmt.Errorf("calls %q: want %q, %q or %q", r.Calls, CallsSeparate, CallsTogether, CallsOnDone))
	}
	switch r.CallFormat {
	case "", CallFormatCurrent, CallFormatLegacy, CallFormatHarmony:
	default:
		errs = append(errs, fmt.Errorf("call_format %q: want %q, %q or %q", r.CallFormat, CallFormatCurrent, CallFormatLegacy, CallFormatHarmony))
	}
	for i, c := range r.ToolCalls {
		if err := c.validate(); err != nil {
			errs = append(errs, fmt.Errorf("tool_calls[%d]: %w", i, err))
		}
	}
	if r.Endless && (len(r.ToolCalls) > 0 || r.Content == "" && r.Thinking == "") {
		errs = append(errs, errors.New("endless needs content or thinking, and no tool_calls"))
	}
	if r.EvalCount < 0 || r.PromptEvalCount < 0 {
		errs = append(errs, errors.New("eval_count and prompt_eval_count must not be negative"))
	}
	return errors.Join(errs...)
}

func (r Reply) validateFailure() error {
	modes := 0
	for _, set := range []bool{r.Status != 0, r.ErrorLine != "", r.Drop, r.Hang} {
		if set {
			modes++
		}
	}
	switch {
	case modes > 1:
		return errors.New("set at most one of status, error_line, drop and hang")
	case r.Status != 0 && (r.Status < 400 || r.Status > 599):
		return fmt.Errorf("status %d: want 400 to 599", r.Status)
	case r.Error != "" && r.Status == 0:
		return errors.New("error needs a status; use error_line for an error after output")
	case r.AfterChunks < 0:
		return errors.New("after_chunks must not be negative")
	case r.AfterChunks > 0 && r.ErrorLine == "" && !r.Drop && !r.Hang:
		return errors.New("after_chunks needs error_line, drop or hang")
	}
	return nil
}

func (c ToolCall) validate() error {
	if c.Name == "" {
		return errors.New("name is empty")
	}
	if _, err := c.arguments(); err != nil {
		return err
	}
	return nil
}

// arguments decodes the call's arguments as the server's ordered map.
func (c ToolCall) arguments() (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	raw := bytes.TrimSpace(c.Arguments)
	if len(raw) == 0 {
		return args, nil
	}
	if raw[0] != '{' {
		return args, fmt.Errorf("arguments %s: want a JSON object", raw)
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return args, fmt.Errorf("arguments %s: %w", raw, err)
	}
	return args, nil
}

// errorMessage is the body's message for a Status reply.
func (r Reply) errorMessage() string {
	if r.Error != "" {
		return r.Error
	}
	return strings.ToLower(http.StatusText(r.Status))
}

// summary describes r in a few words for failure messages.
func (r Reply) summary() string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	switch {
	case r.Func != nil:
		add("Func reply")
	case r.Status != 0:
		add("status %d", r.Status)
	}
	if r.Content != "" {
		add("content %q", clip(r.Content, 40))
	}
	for _, c := range r.ToolCalls {
		add("call %s", c.Name)
	}
	if len(parts) == 0 {
		return "empty reply"
	}
	return strings.Join(parts, ", ")
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}
