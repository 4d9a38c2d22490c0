// Package hooks runs the user's commands at points of a session, speaking
// Claude Code's hook protocol so that scripts written for it run as they
// are: it chooses the hooks an event matches, runs each with the event as
// JSON on its stdin, in its own process tree with a time limit and caps on
// what it prints, and reads exit codes and output into one Outcome. What
// an outcome means for the run is the loop's to decide.
package hooks

import (
	"encoding/json"
	"time"
)

// The events, as Claude Code names them.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	Stop             = "Stop"
	PreCompact       = "PreCompact"
	SessionEnd       = "SessionEnd"
	Notification     = "Notification"
)

// DefaultTimeout is how long a hook may run when its own timeout is not
// set.
const DefaultTimeout = 60 * time.Second

// Hook is one configured command.
type Hook struct {
	Event string
	// Matcher chooses the tools (by name or regular expression, lathe's
	// names or Claude Code's) or the occasions the hook runs for; "" and
	// "*" are every one.
	Matcher string
	// Command is run by bash in the workspace.
	Command string
	// Timeout is how long it may run; 0 means DefaultTimeout.
	Timeout time.Duration
	// Source is the file that declared it.
	Source string
	// Project says the project declared it: it runs only once trusted.
	Project bool
}

func (h Hook) timeout() time.Duration {
	if h.Timeout > 0 {
		return h.Timeout
	}
	return DefaultTimeout
}

// Input is what a hook is told of its event: the JSON on its stdin.
// Fields that do not belong to the event are left out of it.
type Input struct {
	Event     string
	SessionID string
	// TranscriptPath is the conversation as a file in Claude Code's
	// transcript format (see Transcripts); "" when none could be written.
	TranscriptPath string
	Cwd            string
	// PermissionMode is "default", "plan" in plan mode, or
	// "bypassPermissions" when every call is approved (--yes).
	PermissionMode string

	// PreToolUse and PostToolUse: the tool as lathe names it (an MCP
	// tool: SERVER__TOOL), its arguments, and its result (PostToolUse).
	ToolName     string
	ToolInput    json.RawMessage
	ToolUseID    string
	ToolResponse *ToolResponse
	// Aliases are other names the tool is matched by (Claude Code's:
	// Bash for shell); Server and ServerTool name an MCP tool where it
	// lives (matched as mcp__SERVER__TOOL too). Not sent.
	Aliases            []string
	Server, ServerTool string

	Prompt             string // UserPromptSubmit
	StopHookActive     bool   // Stop: the run already went on once because of a Stop hook
	Source             string // SessionStart: startup, resume, clear or compact
	Reason             string // SessionEnd: clear, prompt_input_exit or other
	Trigger            string // PreCompact: manual or auto
	CustomInstructions string // PreCompact
	Message            string // Notification
	NotificationType   string // Notification: permission_prompt or run_finished
}

// ToolResponse is a call's result as PostToolUse hooks get it.
type ToolResponse struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
	Summary string `json:"summary"`
}

// MarshalJSON writes the input as Claude Code's hooks read it.
func (in Input) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"session_id":      in.SessionID,
		"transcript_path": in.TranscriptPath,
		"cwd":             in.Cwd,
		"permission_mode": in.PermissionMode,
		"hook_event_name": in.Event,
	}
	switch in.Event {
	case PreToolUse, PostToolUse:
		m["tool_name"] = in.ToolName
		m["tool_input"] = object(in.ToolInput)
		m["tool_use_id"] = in.ToolUseID
		if in.Event == PostToolUse && in.ToolResponse != nil {
			m["tool_response"] = in.ToolResponse
		}
	case UserPromptSubmit:
		m["prompt"] = in.Prompt
	case Stop:
		m["stop_hook_active"] = in.StopHookActive
	case SessionStart:
		m["source"] = in.Source
	case SessionEnd:
		m["reason"] = in.Reason
	case PreCompact:
		m["trigger"] = in.Trigger
		m["custom_instructions"] = in.CustomInstructions
	case Notification:
		m["message"] = in.Message
		m["notification_type"] = in.NotificationType
	}
	return json.Marshal(m)
}

// object is raw when it is a JSON object, else an empty one: a hook
// reads tool_input's fields.
func object(raw json.RawMessage) json.RawMessage {
	var v map[string]json.RawMessage
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return json.RawMessage("{}")
	}
	return raw
}

// matchKeys are the names the event's matcher is tried against: the tool
// and its other names, or the occasion; nil when the event has no
// matcher (every hook of it runs).
func (in Input) matchKeys() []string {
	switch in.Event {
	case PreToolUse, PostToolUse:
		keys := append([]string{in.ToolName}, in.Aliases...)
		if in.Server != "" {
			keys = append(keys, "mcp__"+in.Server+"__"+in.ServerTool)
		}
		return keys
	case SessionStart:
		return []string{in.Source}
	case SessionEnd:
		return []string{in.Reason}
	case PreCompact:
		return []string{in.Trigger}
	case Notification:
		return []string{in.NotificationType}
	}
	return nil
}
