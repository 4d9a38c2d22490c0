package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseAge(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30d", 30 * 24 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"0s", 0, true},
		{"-1d", 0, false},
		{"-5h", 0, false},
		{"d", 0, false},
		{"1w", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, err := parseAge(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseAge(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// TestHelp: --help names every subcommand, environment variable and
// file, in 80 columns.
func TestHelp(t *testing.T) {
	for i, line := range strings.Split(usage, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line %d is %d columns wide: %q", i+1, n, line)
		}
	}
	for _, want := range []string{
		"lathe sessions [--json] [--all]", "lathe sessions rm ID...",
		"lathe sessions prune --older-than AGE [--all] [--dry-run]", "lathe help", "lathe --version",
		"--dry-run", "--older-than AGE",
		"OLLAMA_HOST", "LATHE_MODEL", "LOG_LEVEL", "NO_COLOR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
		"$XDG_CONFIG_HOME/lathe/config.toml", ".lathe/config.toml", "AGENTS.md",
		"$XDG_DATA_HOME/lathe/lathe.db", "$XDG_STATE_HOME/lathe/lathe.log",
	} {
		if !strings.Contains(usage, want) {
			t.Errorf("the help does not say %q", want)
		}
	}
}

// TestParse: the words name the command wherever the flags stand, and a
// flag is taken only by the commands that declare it; a refusal names
// those that take it.
func TestParse(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string // the command's type, or the usage error
	}{
		{"session", []string{"-p", "hi"}, "*cli.sessionCommand"},
		{"flags before the words", []string{"-C", dir, "--json", "sessions"}, "*cli.sessionsList"},
		{"flags after the words", []string{"sessions", "rm", "x", "-C", dir}, "*cli.sessionsRm"},
		{"two words", []string{"eval", "show", "3", "--csv"}, "*cli.evalShow"},
		{"a suite", []string{"eval", "./suite", "-m", "a,b"}, "*cli.evalRun"},
		{"help wins", []string{"sessions", "--help"}, "cli.helpCommand"},
		{"version wins", []string{"--version", "-p", "hi"}, "cli.versionCommand"},
		{"not the command's", []string{"sessions", "rm", "x", "--all"}, "sessions rm: --all cannot go with it"},
		{"two not the command's", []string{"doctor", "--yes", "--csv"}, "doctor: --yes, --csv cannot go with it"},
		{"one owner", []string{"--repeat", "3"}, "--repeat: only lathe eval takes it"},
		{"the owner is named", []string{"--force"}, "--force: only lathe undo takes it"},
		{"several owners", []string{"--all"}, "--all: only lathe sessions and lathe memory take it"},
		{"json", []string{"-p", "hi", "--json"}, "--json: only lathe sessions takes it (with -p, use --output-format json)"},
		{"a session's flag", []string{"sessions", "-p", "hi"}, "sessions: --prompt cannot go with it"},
		{"resume flags of context", []string{"context", "--continue", "--resume", "x"}, "--continue and --resume cannot go together"},
		{"unknown word", []string{"say", "hi"}, `unexpected argument "say": the request goes with -p (quote it), and the subcommands are sessions, memory, index, undo, doctor, context, eval, mcp, hooks, skills, acp, help`},
		{"memory alone", []string{"memory"}, "memory: say list or rm"},
		{"a bad value", []string{"--max-turns", "abc"}, `--max-turns: "abc" is not a valid value`},
		{"words before flags", []string{"sessions", "rm", "--help"}, "sessions rm: give the id of the session to remove (lathe sessions lists them)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := parse(&Factory{Env: newEnv(nil)}, tt.args)
			got := fmt.Sprintf("%T", cmd)
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("parse(%q) = %s, want %s", tt.args, got, tt.want)
			}
		})
	}
}
