package prompts

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func TestModePromptsGolden(t *testing.T) {
	env := Env{Dir: "/home/dev/proj", OS: "linux", Arch: "amd64"}
	withAgents := Env{Dir: "/home/dev/proj", OS: "darwin", Arch: "arm64", Git: true,
		Instructions: "\nUse tabs. Run `make test` before you finish.\n\n"}
	plan := &PlanView{Summary: "Add a Greet function and test it.", Steps: []string{
		"Add Greet(name string) string to greet.go", "Add a table test in greet_test.go", "Run go test ./..."}}
	tests := []struct {
		name   string
		render func() (string, error)
	}{
		{"build.golden", func() (string, error) { return BuildPrompt(env, nil) }},
		{"build_git_agents.golden", func() (string, error) { return BuildPrompt(withAgents, nil) }},
		{"build_plan.golden", func() (string, error) { return BuildPrompt(env, plan) }},
		{"plan.golden", func() (string, error) { return PlanPrompt(env) }},
		{"ask.golden", func() (string, error) { return AskPrompt(withAgents) }},
		{"build_memory.golden", func() (string, error) {
			e := withAgents
			e.Facts = []string{"Tests run with `make check`.", "Never edit generated/: it is made by `go generate`."}
			e.RepoMap = "cmd/\n  main.go: main\nlex/\n  lex.go: Lexer, (*Lexer).Next"
			return BuildPrompt(e, nil)
		}},
		{"build_hooks.golden", func() (string, error) {
			e := env
			e.HookContext = "Branch: main. Open issue: #12 (flaky TestParse).\n"
			return BuildPrompt(e, nil)
		}},
		{"build_skills.golden", func() (string, error) {
			e := env
			e.Skills = SkillsView{List: []SkillEntry{{"pdf", "Read, fill and merge PDF files; use it for any .pdf."},
				{"release-notes", "Write release notes from the git log."}}}
			return BuildPrompt(e, nil)
		}},
		{"plan_skill_names.golden", func() (string, error) {
			e := env
			e.Skills = SkillsView{Names: true, List: []SkillEntry{{Name: "pdf"}, {Name: "release-notes"}}}
			return PlanPrompt(e)
		}},
		{"ask_skill_count.golden", func() (string, error) {
			e := env
			e.Skills = SkillsView{Count: 140}
			return AskPrompt(e)
		}},
		{"ask_memory.golden", func() (string, error) {
			e := env
			e.Facts = []string{"The user prefers table-driven tests."}
			return AskPrompt(e)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.render()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, got)
		})
	}
}

func TestInstructionsAreCapped(t *testing.T) {
	long := strings.Repeat("Always write tests first, é.\n", 1000) // ~30 KB, multi-byte runes
	got, err := BuildPrompt(Env{Dir: "/p", OS: "linux", Arch: "amd64", Instructions: long}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "[AGENTS.md was cut: only its first 8192 bytes are shown.]") {
		t.Error("a cut AGENTS.md is not announced")
	}
	if !utf8.ValidString(got) {
		t.Error("cutting split a UTF-8 sequence")
	}
	if n := strings.Count(got, "Always write tests first"); n == 0 || n > InstructionsLimit/28 {
		t.Errorf("%d instruction lines kept, want some but at most the limit", n)
	}
	short, _ := PlanPrompt(Env{Dir: "/p", OS: "linux", Arch: "amd64", Instructions: "Be brief."})
	if strings.Contains(short, "was cut") || !strings.Contains(short, "Be brief.") {
		t.Errorf("short instructions mishandled:\n%s", short)
	}
}

// TestFactsAreCapped: the newest facts that fit FactsLimit are shown, in
// their order, and the prompt says how many older ones were left out.
func TestFactsAreCapped(t *testing.T) {
	var facts []string
	for i := range 100 {
		facts = append(facts, fmt.Sprintf("fact number %03d: %s", i, strings.Repeat("x", 40)))
	}
	got, err := BuildPrompt(Env{Dir: "/p", OS: "linux", Arch: "amd64", Facts: facts}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := FactsLimit / (len(facts[0]) + 3)
	if !strings.Contains(got, fmt.Sprintf("[%d older remembered facts are left out for room.]", 100-kept)) {
		t.Errorf("the facts left out are not said:\n%s", got)
	}
	if strings.Contains(got, facts[100-kept-1]) || !strings.Contains(got, facts[100-kept]) || !strings.Contains(got, facts[99]) {
		t.Errorf("not the newest %d facts kept", kept)
	}
	if i, j := strings.Index(got, facts[98]), strings.Index(got, facts[99]); i < 0 || i > j {
		t.Error("the facts are not in their order")
	}
	again, _ := BuildPrompt(Env{Dir: "/p", OS: "linux", Arch: "amd64", Facts: facts}, nil)
	if again != got {
		t.Error("the same facts render differently")
	}
}

func TestCapText(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
		cut   bool
	}{
		{"short", 10, "short", false},
		{"aaaa\nbbbb\ncccc", 12, "aaaa\nbbbb", true},
		{"ééééé", 5, "éé", true}, // 10 bytes; 5 would split the third é
	}
	for _, tt := range tests {
		got, cut := capText(tt.in, tt.limit)
		if got != tt.want || cut != tt.cut {
			t.Errorf("capText(%q, %d) = %q, %v; want %q, %v", tt.in, tt.limit, got, cut, tt.want, tt.cut)
		}
	}
}

func TestCompactAndTitlePrompts(t *testing.T) {
	c, err := CompactPrompt(400)
	if err != nil || !strings.Contains(c, "at most 400 words") || !strings.Contains(c, "Do not call tools") {
		t.Errorf("CompactPrompt = %q, %v", c, err)
	}
	title, err := TitlePrompt(), error(nil)
	if err != nil || !strings.HasPrefix(title, "Reply with a title") {
		t.Errorf("TitlePrompt = %q, %v", title, err)
	}
}
