package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"lathe/config"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/provider"
	"lathe/prompts"
	"lathe/tools"
	"lathe/tools/skill"
)

// skillDescriptions are ten descriptions of the length real skills have
// (Anthropic's public skills run from about 100 to 300 characters).
var skillDescriptions = []string{
	"Comprehensive PDF manipulation toolkit for extracting text and tables, creating new PDFs, merging and splitting documents, and handling forms. Use when filling in a PDF form or processing PDF documents at scale.",
	"Create, edit and analyse Word documents with tracked changes, comments and formatting preserved. Use for any .docx file.",
	"Spreadsheet creation, editing and analysis with formulas, formatting and charts. Use when working with .xlsx, .csv or .tsv files.",
	"Create and edit slide decks: layouts, speaker notes, charts. Use for .pptx files.",
	"Write release notes from the git log since the last tag, grouped by kind of change, in the project's changelog style.",
	"Review a pull request: correctness, tests, naming, and what the change leaves undone. Use before approving a change.",
	"Set up and run database migrations with the project's migration tool; never edit an applied migration.",
	"Profile a Go program with pprof and read the flame graph; use when something is slow or allocates too much.",
	"Write end-to-end tests with testscript for a command-line program, with the fake servers the project keeps.",
	"Triage a failing CI run: find the first failure in the logs, reproduce it locally, and say what broke it.",
}

// BenchmarkPromptGrowth reports what ten skills and twenty custom
// commands add to every request: the skills' list in the system prompt
// and the skill tool's schema (the commands add nothing until one is
// used).
func BenchmarkPromptGrowth(b *testing.B) {
	dir := b.TempDir()
	for i, d := range skillDescriptions {
		name := fmt.Sprintf("skill-%02d", i)
		write(b, filepath.Join(dir, ".claude/skills", name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+d+"\n---\nInstructions.\n")
	}
	for i := range 20 {
		write(b, filepath.Join(dir, ".claude/commands", fmt.Sprintf("cmd-%02d.md", i)),
			"---\ndescription: A command of the project\n---\nDo the thing with $ARGUMENTS.\n")
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	env := prompts.Env{Dir: "/home/dev/projects/service", OS: "linux", Arch: "amd64", Git: true}
	base, _ := prompts.BuildPrompt(env, nil)
	baseSpecs := provider.SpecsSize(tools.Default(ws, tools.Options{}).Specs())
	getenv := func(string) string { return "" }
	var prompt string
	var specs, cmds int
	for b.Loop() {
		cat, _ := engine.Skills(dir, getenv)
		list, _ := engine.Commands(dir, getenv, nil)
		cmds = len(list)
		e := env
		e.Skills = cat.View(engine.SkillsBudget(config.Defaults()))
		prompt, _ = prompts.BuildPrompt(e, nil)
		specs = provider.SpecsSize(tools.Default(ws, tools.Options{}, skill.Tool(cat, 16000)).Specs())
	}
	if cmds != 20 {
		b.Fatalf("%d commands", cmds)
	}
	b.ReportMetric(float64(len(prompt)-len(base)), "prompt-bytes-added")
	b.ReportMetric(float64(specs-baseSpecs), "schema-bytes-added")
	b.ReportMetric(float64((len(prompt)-len(base)+specs-baseSpecs+3)/4), "tokens-added")
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
