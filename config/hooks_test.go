package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHooksLayers(t *testing.T) {
	user := `[[hooks.PreToolUse]]
matcher = "Edit|Write"
command = "fmt-check"
timeout = 5

[[hooks.Stop]]
command = "notify-send done"
`
	project := `[[hooks.PreToolUse]]
matcher = "shell"
command = ".lathe/guard.sh"
`
	src := setup(t, user, project, nil)
	settings := `{"permissions": {"allow": ["Bash(ls)"]},
"hooks": {
  "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/fmt.sh", "timeout": 30}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": "x"}]}],
  "Stop": [{"hooks": [{"type": "prompt", "prompt": "is it done?"}, {"type": "command", "command": "check-done", "timeout": 0.5}]}]
}}`
	writeFile(t, filepath.Join(src.ProjectDir, ".claude", "settings.json"), settings)
	l, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	all := l.Hooks.All()
	var got []string
	for _, h := range all {
		got = append(got, strings.Join([]string{h.Event, h.Matcher, h.Command, filepath.Base(h.Source),
			map[bool]string{true: "project", false: "user"}[h.Project]}, " | "))
	}
	want := []string{
		"PreToolUse | Edit|Write | fmt-check | config.toml | user",
		"PreToolUse | shell | .lathe/guard.sh | config.toml | project",
		`PostToolUse | Write | "$CLAUDE_PROJECT_DIR"/.claude/hooks/fmt.sh | settings.json | project`,
		"Stop |  | notify-send done | config.toml | user",
		"Stop |  | check-done | settings.json | project",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if all[0].Timeout != 5 || all[2].Timeout != 30 || all[4].Timeout != 1 {
		t.Errorf("timeouts %d %d %d, want 5, 30 and 1 (half a second, rounded up)", all[0].Timeout, all[2].Timeout, all[4].Timeout)
	}
	if n := len(l.Hooks.ProjectHooks()); n != 3 {
		t.Errorf("%d project hooks, want 3", n)
	}
	warnings := strings.Join(l.Warnings, "\n")
	for _, w := range []string{"hooks.SubagentStop left out: lathe has no such event", `lathe runs hooks of type "command", not "prompt"`} {
		if !strings.Contains(warnings, w) {
			t.Errorf("warnings lack %q:\n%s", w, warnings)
		}
	}
}

func TestHooksErrors(t *testing.T) {
	for _, tc := range []struct{ name, user, want string }{
		{"no command", "[[hooks.Stop]]\nmatcher = \"\"\n", ":1:3: hooks.Stop: entry 1: command is empty"},
		{"bad matcher", "[[hooks.PreToolUse]]\ncommand = \"x\"\n\n[[hooks.PreToolUse]]\nmatcher = \"(\"\ncommand = \"y\"\n",
			"hooks.PreToolUse: entry 2: matcher \"(\" is not a regular expression"},
		{"bad timeout", "[[hooks.Stop]]\ncommand = \"x\"\ntimeout = 7200\n", "timeout must be between 1 and 3600 seconds"},
		{"unknown event", "[[hooks.PostToolUsed]]\ncommand = \"x\"\n", `hooks.PostToolUsed: unknown key (did you mean "hooks.PostToolUse"?)`},
		{"timeout as duration", "[[hooks.Stop]]\ncommand = \"x\"\ntimeout = \"30s\"\n", ":3:11: hooks.Stop.timeout:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(setup(t, tc.user, "", nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestClaudeSettingsBroken: a settings file that does not parse costs its
// hooks, with a warning; lathe starts.
func TestClaudeSettingsBroken(t *testing.T) {
	src := setup(t, "", "", nil)
	writeFile(t, filepath.Join(src.ProjectDir, ".claude", "settings.json"), `{"hooks": {`)
	writeFile(t, filepath.Join(src.ProjectDir, ".claude", "settings.local.json"),
		`{"hooks": {"Stop": [{"matcher": "(", "hooks": [{"command": "x"}]}, {"hooks": [{"command": "y"}]}]}}`)
	l, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Hooks.Stop) != 1 || l.Hooks.Stop[0].Command != "y" {
		t.Errorf("stop hooks %+v, want y alone", l.Hooks.Stop)
	}
	w := strings.Join(l.Warnings, "\n")
	if !strings.Contains(w, "settings.json: its hooks were not read") || !strings.Contains(w, `matcher "(" is not a regular expression`) {
		t.Errorf("warnings:\n%s", w)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
