package prompts

import (
	"strings"
	"testing"
	"time"
)

// TestNotesGolden renders every sentence of notes.tmpl and hints.tmpl: a
// template that does not render fails here, not in the middle of a run,
// and the golden file shows every word the model may read.
func TestNotesGolden(t *testing.T) {
	tools := []string{"read_file", "glob"}
	notes := []struct{ name, text string }{
		{"Nudge", Nudge()},
		{"WindowFull", WindowFull()},
		{"Announced", Announced()},
		{"StartTaskDenied", StartTaskDenied("just explain it")},
		{"StartTaskUnattended", StartTaskUnattended()},
		{"StartTaskInterrupted", StartTaskInterrupted()},
		{"Repeated", Repeated("3rd")},
		{"TooManyCalls", TooManyCalls(8)},
		{"BudgetSpent", BudgetSpent(50)},
		{"Denied", Denied("")},
		{"Denied with a reason", Denied("keep it small")},
		{"NotRunInterrupted", NotRunInterrupted()},
		{"StoppedMidway", StoppedMidway()},
		{"InterruptedByExit", InterruptedByExit()},
		{"UnknownTool", UnknownTool("rm_rf", tools)},
		{"NotInMode ask", NotInMode("ask", "write_file", tools)},
		{"NotInMode plan", NotInMode("plan", "write_file", tools)},
		{"NotInMode build", NotInMode("build", "propose_plan", tools)},
		{"StartTaskNote", StartTaskNote("rename Foo")},
		{"StartTaskResult", StartTaskResult()},
		{"PlanApprovedNote", PlanApprovedNote()},
		{"PlanApprovedResult", PlanApprovedResult()},
		{"PlanRejected", PlanRejected("")},
		{"PlanRejected with feedback", PlanRejected("test it too")},
		{"PlanKept", PlanKept()},
		{"PlanReviewInterrupted", PlanReviewInterrupted()},
		{"NotRunModeChanged", NotRunModeChanged()},
		{"NotRunTurnEnded", NotRunTurnEnded("propose_plan")},
		{"PlanRequest", PlanRequest()},
		{"PlanRetry", PlanRetry(`"steps" is missing`)},
		{"ResultCut", ResultCut(123456)},
		{"ArgumentsRepaired", ArgumentsRepaired([]string{`"limit" sent as a string`, "arguments sent as a JSON string"})},
		{"ArgumentsIgnored", ArgumentsIgnored("evil, PATH")},
		{"MCPSearchDescription", MCPSearchDescription([]string{"github", "db"})},
		{"MCPSearchQuery", MCPSearchQuery()},
		{"MCPCallDescription", MCPCallDescription()},
		{"MCPCallTool", MCPCallTool()},
		{"MCPCallArguments", MCPCallArguments()},
		{"MCPSearchResult", MCPSearchResult([]MCPTool{{Name: "db__query", Description: "Run a query.", Schema: `{"type":"object"}`}})},
		{"MCPSearchNone", MCPSearchNone("fly", []string{"db__query", "github__get_issue"})},
		{"MCPUnknownTool", MCPUnknownTool("db__drop")},
		{"MCPNotReadOnly", MCPNotReadOnly("db__exec")},
		{"MCPServerDown", MCPServerDown("db", "it stopped: exit status 1")},
		{"MCPTimeout", MCPTimeout(60 * time.Second)},
		{"MCPFailed", MCPFailed("db", "invalid params")},
	}
	for _, h := range []HintName{HintFindFiles, HintReadIt, HintListIt, HintNarrowDown, HintGlobADir,
		HintWholeFile, HintCreateOrFind, HintReread, HintAsReadShows, HintReadRegion, HintTooLargeToEdit} {
		notes = append(notes, struct{ name, text string }{"Hint " + string(h), Hint(h)})
	}
	var b strings.Builder
	for _, n := range notes {
		if strings.TrimSpace(n.text) == "" {
			t.Errorf("%s renders nothing", n.name)
		}
		b.WriteString("## " + n.name + "\n" + n.text + "\n\n")
	}
	golden(t, "notes.golden", b.String())
}
