// Package tools holds the tools a model calls to read, search and change the
// working directory and to run commands in it, all confined to one Workspace.
package tools

import (
	"context"
	"encoding/json"
	"slices"

	"lathe/orchestrator/provider"
)

// Tool is one capability offered to the model.
type Tool interface {
	// Name is the name the model calls the tool by.
	Name() string
	// Spec is what the model is told about the tool. It must be the same
	// value on every call so that requests stay byte-identical from turn to
	// turn.
	Spec() provider.ToolSpec
	// Kind says what the tool does, which decides how its calls are
	// handled: approval, concurrency, dialogs, confinement.
	Kind() Kind
	// Prepare validates the arguments the model sent (a JSON object) and
	// returns a call ready to run. A non-nil error is a message the model
	// can act on ("missing required argument \"path\""), never an
	// infrastructure failure.
	Prepare(args json.RawMessage) (Call, error)
}

// Call is a validated tool call, ready to run.
type Call interface {
	// Subject is the call's key argument for people: a path, a pattern or
	// a command. It is what progress lines and approval prompts show.
	Subject() string
	// Run performs the call for caller. Everything that goes wrong with
	// the call itself (missing file, no match, non-zero exit) is a Result
	// with IsError set; the error return is kept for failures of lathe
	// itself, and for ctx being done.
	Run(ctx context.Context, caller Caller) (Result, error)
}

// Caller is who runs a call, as far as the call needs to know: the session
// it runs in and who listens to how far it got. The zero Caller is no
// session, and nobody listening.
type Caller struct {
	// Session is the id of the session the call runs in; "" when none.
	// A tool that looks at earlier sessions leaves this one out.
	Session string
	// Progress is told how far the call got ("page 3 of 10"); nil when
	// nobody listens.
	Progress func(text string)
}

// Report tells c's listener, if any, how far the call got.
func (c Caller) Report(text string) {
	if c.Progress != nil {
		c.Progress(text)
	}
}

// Aid is a tool that looks things up or keeps them for later (earlier
// sessions, facts, the code index) rather than doing the work. Build mode
// following an approved plan leaves the aids out: the plan was made with
// them, and its steps and checklist take their room in the prompt.
type Aid interface {
	Aid()
}

// Optional is a tool offered only when what it needs is there (a model
// installed, say): a session asks once, before its first request, and
// keeps the answer, so that its requests stay the same.
type Optional interface {
	Available(ctx context.Context) bool
}

// findCall returns the first call of type T in c and the calls it wraps
// (the registry wraps each tool's own call; see capped.Unwrap).
func findCall[T any](c Call) (T, bool) {
	for c != nil {
		if t, ok := c.(T); ok {
			return t, true
		}
		u, ok := c.(interface{ Unwrap() Call })
		if !ok {
			break
		}
		c = u.Unwrap()
	}
	var zero T
	return zero, false
}

// Result is what a call produced.
type Result struct {
	// Content is the text sent back to the model, already capped.
	Content string
	// Images go back to the model with the text (raw PNG, JPEG...), for a
	// model that can see them.
	Images []provider.Image
	// IsError marks a call that failed; Content says why.
	IsError bool
	// Summary is a few words for people: "12 lines", "3 matches", "exit 1".
	Summary string
	// Repairs lists what lathe fixed in the call before running it, a few
	// words each, for people and for counting: "arguments sent as a JSON
	// string", "\"limit\" sent as a string", "old_string matched ignoring
	// indentation". Content tells the model the same. Empty for a call that
	// needed nothing fixed.
	Repairs []string
	// Blocked lists what the sandbox refused the call, a few words each
	// ("write to /etc/hosts"), as Content tells the model; empty when it
	// refused nothing.
	Blocked []string
	// Image is an image the call read for the model to see: the agent
	// attaches it to the next request, when the model can see images.
	Image *provider.Image
	// Diagnostics are the problems the call brought into the files it
	// changed, as language servers found them (Content lists them too);
	// nil when none was found.
	Diagnostics *Diagnostics
}

// RefusedError is a Prepare error for a call refused for what it would
// change rather than for how its arguments are written: Subject names
// that (a path), for people to see with the refusal.
type RefusedError struct {
	Subject string
	Err     error
}

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// Errorf returns an error result whose content and summary are msg.
func Errorf(summary, msg string) Result {
	return Result{Content: "error: " + msg, IsError: true, Summary: summary}
}

// Registry is the set of tools offered to the model, in a fixed order.
type Registry struct {
	tools []Tool
	specs []provider.ToolSpec
}

// NewRegistry returns a registry holding tools in the given order, which is
// the order their specs are sent in.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: slices.Clone(tools)}
	for _, t := range tools {
		r.specs = append(r.specs, t.Spec())
	}
	return r
}

// Specs returns the tool specs for a chat request. The slice is shared:
// callers must not modify it.
func (r *Registry) Specs() []provider.ToolSpec { return r.specs }

// All returns the tools in registry order.
func (r *Registry) All() []Tool { return slices.Clone(r.tools) }

// Lookup finds a tool by the exact name the model used.
func (r *Registry) Lookup(name string) (Tool, bool) {
	for _, t := range r.tools {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// Available returns the registry of r's tools that are available: those
// that are not Optional, and the Optional ones that say so.
func (r *Registry) Available(ctx context.Context) *Registry {
	kept := slices.DeleteFunc(r.All(), func(t Tool) bool {
		o, ok := t.(Optional)
		return ok && !o.Available(ctx)
	})
	if len(kept) == len(r.tools) {
		return r
	}
	return NewRegistry(kept...)
}

// Names returns the tool names in registry order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name()
	}
	return names
}

// Aliased is a tool other agents call by other names (Claude Code calls
// shell Bash): hooks written for them match those names too.
type Aliased interface {
	Aliases() []string
}

// Aliases returns the other names t is known by; nil for none.
func Aliases(t Tool) []string {
	if a, ok := t.(Aliased); ok {
		return a.Aliases()
	}
	return nil
}

// CommandTool is the tool that runs shell commands: the commands a user's
// command file runs (its !`…` lines) go through it, approved and confined
// as the model's calls are.
type CommandTool interface {
	Tool
	// CommandArgs are the arguments of a call that runs command.
	CommandArgs(command string) json.RawMessage
}
