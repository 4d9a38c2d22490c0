package prompts

import (
	"strings"
)

// NotePrefix starts the messages lathe adds to the conversation in the
// user's place, telling the model what happened.
const NotePrefix = "[lathe] "

// IsNote reports whether a user message's content was added by lathe.
func IsNote(content string) bool { return strings.HasPrefix(content, NotePrefix) }

// note renders a sentence of notes.tmpl. The templates are embedded and
// every one is rendered by the tests, so a failure here is a bug in lathe.
func note(name string, data any) string {
	s, err := renderRaw(name, data)
	if err != nil {
		panic("prompts: " + name + ": " + err.Error())
	}
	return s
}

// Nudge is the note an empty reply gets once.
func Nudge() string { return NotePrefix + note("nudge", nil) }

// Announced is the nudge after a reply that announced an action but made
// no call.
func Announced() string { return NotePrefix + note("announced", nil) }

// WindowFull is the note after a reply that filled the context window and
// was cut off there.
func WindowFull() string { return NotePrefix + note("window_full", nil) }

// Repeated is added to a result when the model makes the same call with the
// same result again; ordinal is "3rd", "4th"...
func Repeated(ordinal string) string { return "\n\n" + note("repeated", ordinal) }

// TooManyCalls answers a call past the per-turn limit.
func TooManyCalls(limit int) string { return note("too_many_calls", limit) }

// CallsDropped is added to the answer of the first call past the
// per-turn limit when n more came after it, dropped unread.
func CallsDropped(n int) string { return note("calls_dropped", n) }

// BudgetSpent answers a call past the per-prompt budget.
func BudgetSpent(budget int) string { return note("budget_spent", budget) }

// Denied answers a call the user did not allow, with their reason if any.
func Denied(reason string) string { return note("denied", reason) }

// NotRunInterrupted answers a call the user's interrupt came before.
func NotRunInterrupted() string { return note("not_run_interrupted", nil) }

// StoppedMidway starts the result of a call the user interrupted while it
// ran.
func StoppedMidway() string { return note("stopped_midway", nil) }

// InterruptedByExit is the result a call gets in a resumed history when
// lathe stopped before it finished.
func InterruptedByExit() string { return note("interrupted_by_exit", nil) }

// UnknownTool answers a call to a tool that does not exist.
func UnknownTool(name string, tools []string) string {
	return note("unknown_tool", struct {
		Name  string
		Tools []string
	}{name, tools})
}

// NotInMode refuses a call to a tool the mode does not offer; tools are the
// ones it does.
func NotInMode(mode, tool string, tools []string) string {
	return note("not_in_mode", struct {
		Mode, Tool string
		Tools      []string
	}{mode, tool, tools})
}

// StartTaskNote tells the model that start_task switched to build mode.
func StartTaskNote(goal string) string { return NotePrefix + note("start_task_note", goal) }

// StartTaskResult is start_task's result.
func StartTaskResult() string { return note("start_task_result", nil) }

// StartTaskDenied is start_task's result when the user keeps ask mode,
// with their feedback.
func StartTaskDenied(feedback string) string { return note("start_task_denied", feedback) }

// StartTaskInterrupted is start_task's result when the user stopped the
// request instead of deciding.
func StartTaskInterrupted() string { return note("start_task_interrupted", nil) }

// StartTaskUnattended is start_task's result when no one can approve it
// (headless without --yes).
func StartTaskUnattended() string { return note("start_task_unattended", nil) }

// PlanApprovedNote tells the model its plan was approved.
func PlanApprovedNote() string { return NotePrefix + note("plan_approved_note", nil) }

// PlanGoOnNote asks the model to go on with a plan it left unfinished.
func PlanGoOnNote() string { return NotePrefix + note("plan_go_on_note", nil) }

// PlanApprovedResult is propose_plan's result when the plan is approved.
func PlanApprovedResult() string { return note("plan_approved_result", nil) }

// PlanRejected is propose_plan's result when the plan is rejected, with
// the user's feedback if any.
func PlanRejected(feedback string) string { return note("plan_rejected", feedback) }

// PlanKept is propose_plan's result when the plan is kept for the user.
func PlanKept() string { return note("plan_kept", nil) }

// PlanReviewInterrupted is propose_plan's result when the user stopped the
// request instead of deciding.
func PlanReviewInterrupted() string { return note("plan_review_interrupted", nil) }

// NotRunModeChanged answers the calls after a mode change in one reply.
func NotRunModeChanged() string { return note("not_run_mode_changed", nil) }

// NotRunTurnEnded answers the calls after a transition tool that ended the
// turn without a mode change.
func NotRunTurnEnded(tool string) string { return note("not_run_turn_ended", tool) }

// PlanRequest asks for the plan of the last reply as structured output.
func PlanRequest() string { return NotePrefix + note("plan_request", nil) }

// PlanRetry asks again after an invalid structured plan.
func PlanRetry(problem string) string { return NotePrefix + note("plan_retry", problem) }

// ResultCut is added to a tool result cut to fit the context window; size
// is what it had, in bytes.
func ResultCut(size int) string { return "\n\n" + note("result_cut", size) }

// ArgumentsRepaired tells the model what was fixed in its arguments.
func ArgumentsRepaired(repairs []string) string { return "\n\n" + note("arguments_repaired", repairs) }

// ArgumentsIgnored tells the model which of its arguments were ignored.
func ArgumentsIgnored(names string) string { return "\n\n" + note("arguments_ignored", names) }

// A HintName names a hint in a tool result that points to another tool.
type HintName string

// The hints.
const (
	HintFindFiles      HintName = "find_files"
	HintReadIt         HintName = "read_it"
	HintListIt         HintName = "list_it"
	HintNarrowDown     HintName = "narrow_down"
	HintGlobADir       HintName = "glob_a_dir"
	HintWholeFile      HintName = "whole_file"
	HintCreateOrFind   HintName = "create_or_find"
	HintReread         HintName = "reread"
	HintAsReadShows    HintName = "as_read_shows"
	HintReadRegion     HintName = "read_region"
	HintTooLargeToEdit HintName = "too_large_to_edit"
)

// Hint is the words of a hint, to put in a tool's result.
func Hint(h HintName) string { return note("hint_"+string(h), nil) }

// ImagesShown is the note that carries the images read by tools to the
// model, after the results of the calls that read them.
func ImagesShown(names []string) string { return NotePrefix + note("images_shown", names) }

// ImageUnseen is the result of reading an image for a model that cannot
// see it.
func ImageUnseen(path string, width, height int) string {
	return note("image_unseen", struct {
		Path          string
		Width, Height int
	}{path, width, height})
}
