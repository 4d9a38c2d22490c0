package mcp

import (
	"context"

	"lathe/orchestrator/provider"
)

// Asker puts what a server asks of the user to the user: the UI's
// dialogs (ui's mcpAsker), or, for an editor front end, the editor's own
// questions over the Agent Client Protocol where the protocol carries
// them (session/request_permission for ApproveSampling; an Elicit the
// protocol cannot carry is answered declined, as where nobody can be
// asked). A run nobody watches sets none (Manager.SetAsker), and the
// servers' questions are declined or refused there, said once each. Its
// methods return once answered, or once ctx ends (the server stopped
// waiting, the calls it asked during ended, the connection closed): then
// as cancelled; they never wait past ctx.
type Asker interface {
	// Elicit asks the user for what the server requests: a form to fill,
	// or a URL to open.
	Elicit(ctx context.Context, q Elicitation) ElicitAnswer
	// ApproveSampling asks whether the model may answer the server's
	// messages.
	ApproveSampling(ctx context.Context, q SamplingRequest) SamplingDecision
}

// Sampler has the model answer a server's messages: lathe's own model
// server, the model chosen from the server's preferences among those
// installed, else the one in use.
type Sampler interface {
	Sample(ctx context.Context, q SamplingRequest) (SamplingReply, error)
}

// The actions of an elicitation's answer.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// Elicitation is a server's request for the user's input: a form to fill
// (Fields) or, in URL mode, a page to open (URL).
type Elicitation struct {
	Server  string
	Message string
	// Fields are the form's, required ones first; none in URL mode.
	Fields []Field
	// URL is the page to open, in URL mode; ID names the interaction,
	// which the server says is complete once done.
	URL, ID string
}

// ElicitAnswer is the user's answer: accept (with Content, the form's
// values by field name), decline or cancel.
type ElicitAnswer struct {
	Action  string
	Content map[string]any
}

// SamplingRequest is a server's request that the model answer its
// messages.
type SamplingRequest struct {
	Server string
	// System is the system prompt the server asks for; Messages are the
	// conversation, the model's turn next.
	System   string
	Messages []provider.Message
	// Tools the model may call in its answer, and whether it must ("auto",
	// "required" or "none"; "" is auto).
	Tools      []provider.ToolSpec
	ToolChoice string
	// MaxTokens caps the answer.
	MaxTokens int
	// Hints name the models the server would like, best first (substrings
	// of a model's name).
	Hints []string
}

// SamplingDecision is the user's answer to a sampling request: whether
// the model may answer, and, with Session, every request of the server
// until the session ends.
type SamplingDecision struct {
	Allow, Session bool
}

// SamplingReply is the model's answer: its text, or the calls it makes of
// the tools offered, the model that answered, and why it stopped
// ("endTurn", "maxTokens", "toolUse").
type SamplingReply struct {
	Model      string
	Text       string
	ToolCalls  []provider.ToolCall
	StopReason string
}
