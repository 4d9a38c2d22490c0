package print

import (
	"encoding/json"

	"lathe/orchestrator"
	"lathe/orchestrator/plan"
	"lathe/tools"
)

// The events of stream-json, one type each. Type names the event on the
// wire; the fields are in the order they are written.

// sessionStartJSON opens the stream: the session and the model, before the
// first turn.
type sessionStartJSON struct {
	Type      string `json:"type"` // session
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
}

type turnStartJSON struct {
	Type string `json:"type"` // turn_start
	Turn int    `json:"turn"`
}

// textJSON is a piece of the reply, or the reply rewritten once the calls
// written as text were taken out of it.
type textJSON struct {
	Type string `json:"type"` // text, reply_rewritten
	Turn int    `json:"turn"`
	Text string `json:"text"`
}

type toolCallJSON struct {
	Type      string          `json:"type"` // tool_call
	Turn      int             `json:"turn"`
	Index     int             `json:"index"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type toolResultJSON struct {
	Type       string `json:"type"` // tool_result
	Turn       int    `json:"turn"`
	Index      int    `json:"index"`
	ID         string `json:"id,omitempty"`
	Name       string `json:"name"`
	Outcome    string `json:"outcome"`
	Summary    string `json:"summary"`
	Content    string `json:"content"`
	DurationMS int64  `json:"duration_ms"`
	// Diagnostics are the problems the call brought into the files it
	// changed, as the language servers found them.
	Diagnostics *tools.Diagnostics `json:"diagnostics,omitempty"`
}

type turnEndJSON struct {
	Type             string     `json:"type"` // turn_end
	Turn             int        `json:"turn"`
	PromptTokens     int        `json:"prompt_tokens"`
	CompletionTokens int        `json:"completion_tokens"`
	DurationMS       int64      `json:"duration_ms"`
	Timing           timingJSON `json:"timing"`
}

type warningJSON struct {
	Type    string `json:"type"` // warning
	Message string `json:"message"`
}

type compactedJSON struct {
	Type         string `json:"type"` // compacted
	Summarized   int    `json:"summarized"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
}

type modeChangedJSON struct {
	Type   string     `json:"type"` // mode_changed
	From   string     `json:"from"`
	To     string     `json:"to"`
	Reason string     `json:"reason"`
	Plan   *plan.Plan `json:"plan,omitempty"`
}

type planProposedJSON struct {
	Type string     `json:"type"` // plan_proposed
	Turn int        `json:"turn"`
	Plan *plan.Plan `json:"plan"`
}

type planUpdatedJSON struct {
	Type string     `json:"type"` // plan_updated
	Plan *plan.Plan `json:"plan"`
}

type imagesJSON struct {
	Type   string                   `json:"type"` // images
	Turn   int                      `json:"turn"`
	From   string                   `json:"from"`
	Images []orchestrator.ImageInfo `json:"images"`
}

type toolsChangedJSON struct {
	Type  string   `json:"type"` // tools_changed
	Notes []string `json:"notes"`
}

// hookJSON is the hooks that ran at an event: what they decided
// together, and each one's run.
type hookJSON struct {
	Type         string          `json:"type"` // hook
	Event        string          `json:"event"`
	Turn         int             `json:"turn,omitempty"`
	Index        *int            `json:"index,omitempty"` // the call, for PreToolUse and PostToolUse
	Tool         string          `json:"tool,omitempty"`
	Outcome      string          `json:"outcome"` // ok, blocked, stopped or failed
	Reason       string          `json:"reason,omitempty"`
	Permission   string          `json:"permission,omitempty"`
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"`
	Hooks        []hookRunJSON   `json:"hooks"`
}

type hookRunJSON struct {
	Command    string `json:"command"`
	Source     string `json:"source"`
	Status     string `json:"status"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	Output     string `json:"output,omitempty"`
	Problem    string `json:"problem,omitempty"`
}

func newHookJSON(e orchestrator.HookRan) hookJSON {
	o := e.Outcome
	j := hookJSON{Type: "hook", Event: e.Event, Turn: e.Turn, Tool: e.Tool, Outcome: e.Result(),
		Reason: o.Reason, Permission: o.Permission, UpdatedInput: o.UpdatedInput, Hooks: []hookRunJSON{}}
	if o.Stop {
		j.Reason = o.StopReason
	}
	if e.Index >= 0 && e.Tool != "" {
		j.Index = &e.Index
	}
	for _, r := range o.Runs {
		j.Hooks = append(j.Hooks, hookRunJSON{Command: r.Hook.Command, Source: r.Hook.Source, Status: string(r.Status),
			ExitCode: r.ExitCode, DurationMS: r.Duration.Milliseconds(), Output: r.Output, Problem: r.Problem})
	}
	return j
}

// streamEvent returns e as stream-json writes it; false for an event the
// stream leaves out (thinking, a call's progress).
func streamEvent(e orchestrator.Event) (any, bool) {
	switch e := e.(type) {
	case orchestrator.TurnStarted:
		return turnStartJSON{Type: "turn_start", Turn: e.Turn}, true
	case orchestrator.TextDelta:
		return textJSON{Type: "text", Turn: e.Turn, Text: e.Text}, true
	case orchestrator.ToolStarted:
		return toolCallJSON{Type: "tool_call", Turn: e.Turn, Index: e.Index, ID: e.ID, Name: e.Name,
			Arguments: rawJSON(e.Args)}, true
	case orchestrator.ToolFinished:
		return toolResultJSON{Type: "tool_result", Turn: e.Turn, Index: e.Index, ID: e.ID, Name: e.Name,
			Outcome: string(e.Outcome), Summary: e.Result.Summary, Content: e.Result.Content,
			DurationMS: e.Duration.Milliseconds(), Diagnostics: e.Result.Diagnostics}, true
	case orchestrator.TurnFinished:
		return turnEndJSON{Type: "turn_end", Turn: e.Turn, PromptTokens: e.PromptTokens,
			CompletionTokens: e.CompletionTokens, DurationMS: e.Duration.Milliseconds(),
			Timing: newTimingJSON(e.Timing)}, true
	case orchestrator.ReplyRewritten:
		return textJSON{Type: "reply_rewritten", Turn: e.Turn, Text: e.Content}, true
	case orchestrator.Warning:
		return warningJSON{Type: "warning", Message: e.Text}, true
	case orchestrator.Compacted:
		return compactedJSON{Type: "compacted", Summarized: e.Summarized, TokensBefore: e.Before,
			TokensAfter: e.After}, true
	case orchestrator.ModeChanged:
		return modeChangedJSON{Type: "mode_changed", From: e.From, To: e.To, Reason: e.Reason, Plan: e.Plan}, true
	case orchestrator.PlanProposed:
		return planProposedJSON{Type: "plan_proposed", Turn: e.Turn, Plan: e.Plan}, true
	case orchestrator.PlanUpdated:
		return planUpdatedJSON{Type: "plan_updated", Plan: e.Plan}, true
	case orchestrator.ImagesAttached:
		return imagesJSON{Type: "images", Turn: e.Turn, From: e.From, Images: e.Images}, true
	case orchestrator.ToolsChanged:
		return toolsChangedJSON{Type: "tools_changed", Notes: e.Notes}, true
	case orchestrator.HookRan:
		return newHookJSON(e), true
	}
	return nil, false
}

// rawJSON passes valid JSON through and quotes anything else.
func rawJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
