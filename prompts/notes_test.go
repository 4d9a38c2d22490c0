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
		{"ImagesShown", ImagesShown([]string{"shot.png"})},
		{"ImagesShown, two", ImagesShown([]string{"a.png", "b.jpg"})},
		{"ImageUnseen", ImageUnseen("docs/shot.png", 1280, 720)},
		{"WindowFull", WindowFull()},
		{"Announced", Announced()},
		{"StartTaskDenied", StartTaskDenied("just explain it")},
		{"StartTaskUnattended", StartTaskUnattended()},
		{"StartTaskInterrupted", StartTaskInterrupted()},
		{"Repeated", Repeated("3rd")},
		{"TooManyCalls", TooManyCalls(8)},
		{"TooManyCalls, more dropped", TooManyCalls(8) + CallsDropped(99991)},
		{"TooManyCalls, one more dropped", TooManyCalls(8) + CallsDropped(1)},
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
		{"PlanGoOnNote", PlanGoOnNote()},
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
		{"RecallFound", RecallFound([]RecallHit{
			{Session: "3f2a9c1b5d6e7f80", Date: "2026-11-20", Title: "Fix the parser", Role: "assistant", Snippet: "The tests run with make check"},
			{Session: "9bda743ca66732d1", Date: "2026-11-02", Title: "Set up CI", Role: "user", Snippet: "…make check fails on CI…"}})},
		{"RecallNone", RecallNone("make check")},
		{"Remembered", Remembered()},
		{"CodeFound", CodeFound([]CodeHit{
			{Where: "lex/lex.go:14-17", Symbol: "(*Lexer).Next", Excerpt: "    // Next returns the next token.\n    func (l *Lexer) Next() string {"},
			{Where: "docs/guide.md:1-9", Changed: true, Excerpt: "    # Guide"}}, "indexing: 120 of 800 files so far")},
		{"CodeNone", CodeNone("")},
		{"CodeNoIndex", CodeNoIndex("indexing: 12 of 800 files")},
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
		{"HookBlocked", HookBlocked("no writes under vendor/\n")},
		{"HookBlocked without a reason", HookBlocked("")},
		{"HookFeedback", HookFeedback("gofmt changed main.go")},
		{"HookContext", HookContext([]string{"branch: main", "3 files changed"})},
		{"HookGoOn", HookGoOn("go test ./... fails: TestParse")},
		{"HookGoOn without a reason", HookGoOn("")},
		{"HookBadInput", HookBadInput(`missing required argument "path"`)},
		{"HookStopped", HookStopped()},
		{"CommandOutput", CommandOutput("git status --short", " M main.go\n")},
		{"CommandNotRun", CommandNotRun("make lint", "denied: the user did not allow this call")},
		{"IncludedFile", IncludedFile("docs/style.md", "Use tabs.\n")},
		{"IncludedFile cut", IncludedFile("big.txt", strings.Repeat("x", IncludedFileLimit+10))[:80]},
		{"CommandArguments", CommandArguments("main --fast")},
		{"SkillLoaded", SkillText(SkillLoaded{Name: "pdf", Body: "# PDF\nUse pdftotext.", Dir: ".claude/skills/pdf",
			Files: []string{"forms.md", "scripts/fill.py"}})},
		{"SkillLoaded, cut, the user's", SkillText(SkillLoaded{Name: "big", Body: "…", Cut: true, Size: 5000000, Shown: 12000})},
		{"SkillFile", SkillFile("pdf", "forms.md", "Fill the form.", false, 0)},
		{"SkillsFound", SkillsFound("fill a pdf", []SkillEntry{{"pdf", "Read and fill PDF files."}}, nil)},
		{"SkillsFound, none", SkillsFound("haiku", nil, []string{"pdf", "xlsx"})},
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
