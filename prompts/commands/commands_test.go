package commands

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	ws, user, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".lathe/commands/review.md"), "---\ndescription: Review a branch\nargument-hint: BRANCH\nmode: plan\n---\nReview $1.\n")
	write(t, filepath.Join(ws, ".claude/commands/review.md"), "Claude's review.\n")
	write(t, filepath.Join(ws, ".claude/commands/frontend/component.md"), "---\nallowed-tools: Bash(git add:*), Read\n---\nMake a component $ARGUMENTS.\n")
	write(t, filepath.Join(ws, ".claude/commands/help.md"), "Not lathe's help.\n")
	write(t, filepath.Join(ws, ".claude/commands/broken.md"), "---\ndescription: fine\nmodel: a: b\n---\nbody\n")
	write(t, filepath.Join(ws, ".claude/commands/notes.txt"), "not a command\n")
	write(t, filepath.Join(outside, "secret.md"), "the secret\n")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, ".lathe/commands/leak.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(user, "commit.md"), "Commit the staged changes.\n")
	write(t, filepath.Join(user, "review.md"), "My own review.\n")

	cmds, warnings := Load(Dirs{Workspace: ws, User: user}, []string{"help", "new"})
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, " "); got != "commit frontend:component review" {
		t.Errorf("commands %s", got)
	}
	review, _ := Find(cmds, "review")
	if review.Description != "Review a branch" || review.ArgumentHint != "BRANCH" || review.Mode != "plan" || !review.Project ||
		review.Body != "Review $1.\n" || review.Summary() != "Review a branch" {
		t.Errorf("review %+v", review)
	}
	comp, _ := Find(cmds, "frontend:component")
	if strings.Join(comp.AllowedTools, "|") != "Bash(git add:*)|Read" || comp.Summary() != "Make a component $ARGUMENTS." {
		t.Errorf("component %+v", comp)
	}
	if commit, _ := Find(cmds, "commit"); commit.Project {
		t.Error("the user's command is the project's")
	}
	w := strings.Join(warnings, "\n")
	for _, want := range []string{
		".claude/commands/review.md: left out: /review is taken by " + filepath.Join(ws, ".lathe/commands/review.md"),
		filepath.Join(user, "review.md") + ": left out: /review is taken by",
		".claude/commands/help.md: left out: /help is one of lathe's own commands",
		".claude/commands/broken.md:3: its front matter is broken (mapping values are not allowed in this context): left out",
		".lathe/commands/leak.md: not read:",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
}

func TestExpand(t *testing.T) {
	files := map[string]string{"docs/style.md": "Use tabs.\n"}
	var ran []string
	env := Env{
		Read: func(p string) ([]byte, error) {
			if s, ok := files[p]; ok {
				return []byte(s), nil
			}
			return nil, errors.New("no such file")
		},
		Run: func(_ context.Context, command string) string {
			ran = append(ran, command)
			return "<" + command + " output>"
		},
	}
	for _, tc := range []struct{ name, body, args, want string }{
		{"positional", "Review $1 against $2, then $3.", `feature "main branch"`, "Review feature against main branch, then ."},
		{"all", "Fix: $ARGUMENTS", "the flaky test", "Fix: the flaky test"},
		{"appended", "Summarize the changes.", "briefly", "Summarize the changes.\n\nArguments: briefly"},
		{"none given", "Summarize the changes.", "", "Summarize the changes."},
		{"commands", "Status:\n!`git status --short`\nDiff of $1: !`git diff $1`", "main",
			"Status:\n\n<git status --short output>\n\nDiff of main: \n<git diff main output>"},
		{"files", "Follow @docs/style.md (and @missing.md), see @docs/style.md.", "",
			"Follow @docs/style.md (and @missing.md), see @docs/style.md.\n\n[file docs/style.md]\nUse tabs.\n[end of docs/style.md]"},
		{"not a mention", "Mail me@example.com; keep `!`this`.", "", "Mail me@example.com; keep `!`this`."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran = nil
			got := Command{Body: tc.body}.Expand(t.Context(), tc.args, env)
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestAllowed: allowed-tools in Claude Code's names or lathe's, as lathe
// approves them; what names nothing lathe can approve is left out.
func TestAllowed(t *testing.T) {
	got := Command{AllowedTools: []string{"Bash(git diff:*)", " Bash(git status) ", "Bash(go test *)", "Read", "Glob", "Grep", "LS",
		"Edit", "MultiEdit", "Write", "mcp__github__create_issue", "mcp__github", "Edit(src/**)", "Bash(rm *.tmp)",
		"Bash(:*)", "run_tests", "WebFetch(domain:x.org)", "Bash(ls"}}.Allowed()
	want := Allowance{
		Tools:    []string{"edit_file", "edit_file", "write_file", "github__create_issue", "run_tests"},
		Prefixes: []string{"git diff", "go test"},
		Commands: []string{"git status"},
	}
	if !slices.Equal(got.Tools, want.Tools) || !slices.Equal(got.Prefixes, want.Prefixes) || !slices.Equal(got.Commands, want.Commands) {
		t.Errorf("Allowance = %+v, want %+v", got, want)
	}
	if a := (Command{AllowedTools: []string{"Bash"}}).Allowed(); !slices.Equal(a.Tools, []string{"shell"}) {
		t.Errorf("Bash = %+v, want the whole shell tool", a)
	}
}
