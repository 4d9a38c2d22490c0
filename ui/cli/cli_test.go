package cli

import (
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
