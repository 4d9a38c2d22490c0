// Package demo is lathe's demo model: a provider that needs no model
// server and no GPU, for trying lathe (lathe --demo). It answers from what
// the request holds, never from a script of replies, so it stays in step
// with whatever the user types and with the requests lathe makes on its
// own (a session's title, a compaction): asked to create a file it writes
// hello.txt, to fix the bug it edits greet.go, to run something it runs a
// command, in plan mode it proposes a plan and carries it out once
// approved, and otherwise it looks around the project and says what to
// try. Its replies stream as a model's do, with the calls lathe asks
// approval for, so that every screen of lathe can be seen.
package demo

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"lathe/orchestrator/provider"
	"lathe/prompts"
)

// Name is the demo model's name.
const Name = "demo"

// window is the demo model's context window, in tokens.
const window = 32768

// Model is the demo model: a provider.Provider.
type Model struct {
	// Pace is how long each streamed piece of a reply waits: the speed
	// the reply appears at.
	Pace time.Duration
}

var _ provider.Provider = (*Model)(nil)

// Model implements provider.Provider: the demo model, whatever the name.
func (*Model) Model(_ context.Context, name string) (provider.ModelInfo, error) {
	if name != "" && name != Name {
		return provider.ModelInfo{Name: name}, provider.Errorf(provider.ErrModelNotFound, nil,
			"model %q is not the demo's: lathe --demo runs its own model, %q", name, Name)
	}
	return provider.ModelInfo{Name: Name, Capabilities: []string{"completion", "tools"}, ContextLength: window,
		NumCtx: window, ParameterSize: "0B"}, nil
}

// Models implements provider.Provider.
func (*Model) Models(context.Context) ([]provider.ModelSummary, error) {
	return []provider.ModelSummary{{Name: Name, ParameterSize: "0B", Tools: true}}, nil
}

// Chat implements provider.Provider: the reply the request calls for,
// streamed a few words at a time.
func (m *Model) Chat(ctx context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	start := time.Now()
	r := reply(req)
	pieces := words(r.text)
	for _, p := range pieces {
		if err := m.wait(ctx); err != nil {
			return err
		}
		if err := fn(provider.Chunk{Content: p}); err != nil {
			return err
		}
	}
	if err := m.wait(ctx); err != nil {
		return err
	}
	return fn(provider.Chunk{ToolCalls: r.calls, Done: true, DoneReason: "stop", Metrics: provider.Metrics{
		PromptTokens: promptTokens(req.Messages), CompletionTokens: len(pieces) + 10*len(r.calls),
		EvalDuration: time.Since(start), TotalDuration: time.Since(start),
	}})
}

// wait waits the pace, or for ctx to end.
func (m *Model) wait(ctx context.Context) error {
	if m.Pace <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(m.Pace)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// words cuts text into the pieces it streams in: a word and the blanks
// after it.
func words(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexAny(text, " \n")
		if i < 0 {
			return append(out, text)
		}
		j := i
		for j < len(text) && (text[j] == ' ' || text[j] == '\n') {
			j++
		}
		out = append(out, text[:j])
		text = text[j:]
	}
	return out
}

// promptTokens guesses the prompt's length in tokens: four bytes each.
func promptTokens(msgs []provider.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Thinking)
		for _, c := range m.ToolCalls {
			n += len(c.Arguments)
		}
	}
	return n/4 + 1
}

// answer is a reply: its text, and the calls it makes.
type answer struct {
	text  string
	calls []provider.ToolCall
}

// call is a tool call with arguments v.
func call(name string, v any) provider.ToolCall {
	b, _ := json.Marshal(v) // maps and strings
	return provider.ToolCall{Name: name, Arguments: b}
}

// turn is where a request stands: the user's prompt, and what was done
// since.
type turn struct {
	prompt string                 // the user's words, lower case
	note   string                 // the plan's approval, when the steps count from it
	steps  int                    // replies since the prompt (or the approval)
	last   []provider.Message     // the tool results of the last reply
	offers func(name string) bool // whether the request offers a tool
}

// reply is the answer req calls for.
func reply(req *provider.Request) answer {
	if len(req.Messages) == 0 {
		return answer{} // a model's preload
	}
	last := req.Messages[len(req.Messages)-1]
	switch {
	case last.Role == "user" && last.Content == prompts.TitlePrompt():
		return answer{text: title(req.Messages)}
	case len(req.Tools) == 0:
		return answer{text: "The user is trying lathe's demo model, which answers the same way whatever the question."}
	}
	t := where(req)
	for _, res := range t.last {
		if strings.HasPrefix(res.Content, prompts.Denied("")) {
			return answer{text: "You denied **" + res.ToolName + "**, so I left it alone. " +
				"Ask again and answer `y` to see it run; `n` lets you give the model a reason."}
		}
	}
	switch {
	case t.note == prompts.PlanApprovedNote():
		return carryOut(t)
	case t.offers("propose_plan"):
		return propose(t)
	case !t.offers("write_file"):
		return answer{text: askAnswer}
	}
	return build(t)
}

// where finds the request's prompt and what was done since: the replies
// since it, or since the plan's approval, and the last one's results.
func where(req *provider.Request) turn {
	t := turn{offers: func(name string) bool {
		return slices.ContainsFunc(req.Tools, func(s provider.ToolSpec) bool { return s.Name == name })
	}}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		switch m := req.Messages[i]; {
		case m.Role == "assistant":
			t.steps++
		case m.Role == "tool" && t.steps == 0:
			t.last = append(t.last, m)
		case m.Role == "user" && m.Content == prompts.PlanApprovedNote():
			t.note = m.Content
			return t
		case m.Role == "user" && !prompts.IsNote(m.Content):
			t.prompt = strings.ToLower(m.Content)
			return t
		}
	}
	return t
}

// title is a session's title: its first prompt's first words.
func title(msgs []provider.Message) string {
	for _, m := range msgs {
		if m.Role == "user" && !prompts.IsNote(m.Content) {
			w := strings.Fields(m.Content)
			return "Demo: " + strings.Join(w[:min(len(w), 5)], " ")
		}
	}
	return "Trying the demo"
}

// has reports whether s holds any of the words.
func has(s string, words ...string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
}

// build is build mode's answer: what the prompt asks for, a step at a
// time.
func build(t turn) answer {
	var steps []answer
	switch p := t.prompt; {
	case has(p, "fix", "bug", "edit", "change"):
		steps = fixSteps
	case has(p, "create", "write", "add", "new file", "hello"):
		steps = writeSteps
	case has(p, "run", "test", "command", "shell", "ls"):
		steps = runSteps
	default:
		steps = tourSteps
	}
	return steps[min(t.steps, len(steps)-1)]
}

// propose is plan mode's answer: a look around, then the plan.
func propose(t turn) answer {
	switch t.steps {
	case 0:
		return answer{text: "Let me see what is here before I plan.", calls: []provider.ToolCall{call("list_dir", map[string]string{})}}
	case 1:
		return answer{calls: []provider.ToolCall{call("propose_plan", map[string]any{
			"summary": "Add hello.txt with a greeting, then show it, so that you can see build mode follow a plan.",
			"steps":   []string{"Write hello.txt with a greeting", "Show hello.txt with cat"},
		})}}
	}
	return answer{text: "Tell me what to change in the plan, and I will propose it again; or switch to build mode with Shift+Tab."}
}

// carryOut is build mode following the approved plan, a step a reply.
func carryOut(t turn) answer {
	steps := []answer{
		{text: "Step 1: the file.", calls: []provider.ToolCall{
			call("write_file", map[string]string{"path": "hello.txt", "content": greeting}),
			call("update_plan", map[string]any{"step": 1, "status": "done"})}},
		{text: "Step 2: let me show it.", calls: []provider.ToolCall{
			call("shell", map[string]string{"command": "cat hello.txt"}),
			call("update_plan", map[string]any{"step": 2, "status": "done"})}},
		{text: "The plan is done: **hello.txt** holds a greeting, and both steps are checked off.\n\n" +
			"`/undo` takes the change back."},
	}
	return steps[min(t.steps, len(steps)-1)]
}
