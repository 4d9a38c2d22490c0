package print

import (
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

// TestTables: the lists of sessions and of facts are columns two spaces
// apart, as wide as their widest cell, the last one unpadded; with dirs,
// the directory is the column before the last.
func TestTables(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.Local)
	sessions := []session.Summary{
		{Record: session.Record{ID: "0123456789abcdef", Title: "fix the tests", Model: "qwen3:8b", Dir: "/src/app"},
			Updated: now.Add(-3 * time.Minute), Messages: 12,
			LastRun: &session.RunSummary{Completed: now, StopReason: "done"}},
		{Record: session.Record{ID: "fedcba98", Title: "a long title, with words", Model: "llama3.1:70b", Dir: "/home"},
			Updated: now.Add(-50 * time.Hour), Messages: 3,
			LastRun: &session.RunSummary{}, Undone: 2},
		{Record: session.Record{ID: "ab", Title: "new", Model: "m", Dir: "/"}, Updated: now},
	}
	facts := []session.Fact{
		{ID: 1, Dir: "/src/app", Text: "tests run with make check", Created: now.Add(-48 * time.Hour)},
		{ID: 12, Dir: "/home", Text: "short", Created: now},
	}
	for _, c := range []struct {
		name  string
		write func(*strings.Builder) error
		want  string
	}{
		{"sessions", func(b *strings.Builder) error { return Sessions(b, sessions, now, false) }, "" +
			"ID        AGE  MODEL         MESSAGES  LAST RUN               TITLE\n" +
			"01234567  3m   qwen3:8b      12        done                   fix the tests\n" +
			"fedcba98  2d   llama3.1:70b  3         interrupted, 2 undone  a long title, with words\n" +
			"ab        now  m             0         -                      new\n"},
		{"sessions with dirs", func(b *strings.Builder) error { return Sessions(b, sessions, now, true) }, "" +
			"ID        AGE  MODEL         MESSAGES  LAST RUN               DIR       TITLE\n" +
			"01234567  3m   qwen3:8b      12        done                   /src/app  fix the tests\n" +
			"fedcba98  2d   llama3.1:70b  3         interrupted, 2 undone  /home     a long title, with words\n" +
			"ab        now  m             0         -                      /         new\n"},
		{"facts", func(b *strings.Builder) error { return Facts(b, facts, false) }, "" +
			"1   2026-11-26  tests run with make check\n" +
			"12  2026-11-28  short\n"},
		{"facts with dirs", func(b *strings.Builder) error { return Facts(b, facts, true) }, "" +
			"1   2026-11-26  /src/app  tests run with make check\n" +
			"12  2026-11-28  /home     short\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := c.write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), c.want)
			}
		})
	}
}
