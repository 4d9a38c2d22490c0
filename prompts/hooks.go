package prompts

import "strings"

// HookBlocked answers a call a PreToolUse hook did not allow, with what
// it said.
func HookBlocked(reason string) string { return note("hook_blocked", strings.TrimSpace(reason)) }

// HookFeedback follows the result of a call a PostToolUse hook objected
// to, with what it said.
func HookFeedback(reason string) string {
	return "\n\n" + note("hook_feedback", strings.TrimSpace(reason))
}

// HookContext is what hooks add for the model (additionalContext, what
// a UserPromptSubmit hook printed), after a result or a prompt.
func HookContext(texts []string) string { return note("hook_context", texts) }

// HookGoOn is the note that sends the model back to work when a Stop
// hook said it is not done, with what it said.
func HookGoOn(reason string) string {
	return NotePrefix + note("hook_go_on", strings.TrimSpace(reason))
}

// HookBadInput answers a call whose arguments a hook changed into ones
// its tool refuses.
func HookBadInput(err string) string { return note("hook_bad_input", err) }

// HookStopped answers a call a hook's "continue": false came before.
func HookStopped() string { return note("hook_stopped", nil) }

// HookContextLimit is how much of what SessionStart hooks print goes into
// the system prompt, in bytes.
const HookContextLimit = 8 << 10
