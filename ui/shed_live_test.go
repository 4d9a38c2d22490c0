package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
)

// TestLongDayLetsGoOfTheOldestTurns: over hundreds of turns saved in a
// store, the transcript lets go of the items of the oldest ones and
// stays under a bound; scrolling up reads them back from the store, until
// every turn shows once, in order, prompt and answer.
func TestLongDayLetsGoOfTheOldestTurns(t *testing.T) {
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	l := readyLoop(t, Options{
		Engine: orchestrator.Options{Provider: chattyProvider{}, Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(),
			Config: cfg, Recorder: sqlitetest.Open(t)},
		Dir: ws.Dir(), NoColor: true, Width: 100, Height: 30,
	})
	m := l.m
	prompt := func(i int) string { return fmt.Sprintf("turn %d: why does the parser cut the line in two?", i) }
	const turns = 420
	most := 0
	for i := 1; i <= turns; i++ {
		l.enter(prompt(i))
		l.until("the answer", func() bool { return m.run == nil })
		most = max(most, len(m.transcript.items))
	}
	if most > shedAbove+8 || m.older == nil || !m.olderShown() {
		t.Fatalf("the transcript held up to %d items (older pages: %v)", most, m.older != nil)
	}
	if s := screen(m); !strings.Contains(s, prompt(turns)) {
		t.Fatalf("the last turn is not on the screen:\n%s", s)
	}
	for range 1000 {
		if m.older == nil {
			break
		}
		l.key("ctrl+home")
		l.until("a page of older turns", func() bool { return m.older == nil || !m.older.loading })
	}
	if m.older != nil {
		t.Fatal("the older turns are not all read back")
	}
	lines := transcriptLines(m)
	at, answers := 0, 0
	for _, line := range lines {
		if strings.Contains(line, "will pass.") {
			answers++
		}
	}
	for i := 1; i <= turns; i++ {
		n := 0
		for j, line := range lines {
			if strings.Contains(line, prompt(i)) {
				n++
				if j < at {
					t.Fatalf("turn %d shows before turn %d", i, i-1)
				}
				at = j
			}
		}
		if n != 1 {
			t.Fatalf("turn %d shows %d times", i, n)
		}
	}
	if answers != turns {
		t.Errorf("%d answers show, for %d turns", answers, turns)
	}
}
