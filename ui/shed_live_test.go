package ui

import (
	"fmt"
	"strings"
	"testing"
)

// TestLongDayLetsGoOfTheOldestTurns: over hundreds of turns saved in a
// store, the transcript lets go of the items of the oldest ones and
// stays under a bound; scrolling up reads them back from the store, until
// every turn shows once, in order, prompt and answer.
func TestLongDayLetsGoOfTheOldestTurns(t *testing.T) {
	l := longDayLoop(t)
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

// TestShedKeepsThePlanFollowed: the turns let go of stop at the plan
// being followed, however old; without one they go down to keepItems.
func TestShedKeepsThePlanFollowed(t *testing.T) {
	for _, c := range []struct {
		name    string
		planned bool
	}{{"plan", true}, {"no plan", false}} {
		t.Run(c.name, func(t *testing.T) {
			l := longDayLoop(t)
			m := l.m
			l.enter("turn 1: why does the parser cut the line in two?")
			l.until("the answer", func() bool { return m.run == nil })
			tr := m.transcript
			for i := range 700 {
				if i%2 == 0 {
					tr.starts = append(tr.starts, runStart{len(tr.items), 2 + i})
				}
				m.notice(noticeInfo, "", fmt.Sprintf("item %d", i))
			}
			plan := len(tr.items) - 700 + 101 // "item 101", in the turn starting at "item 100"
			if c.planned {
				m.mode.item = plan
			}
			m.shedTurns()
			if !m.olderShown() || len(tr.items) > 700 {
				t.Fatalf("%d items left, older pages shown: %v", len(tr.items), m.olderShown())
			}
			shown := strings.Join(transcriptLines(m), "\n")
			switch {
			case c.planned && (m.mode.item != 2 || !strings.Contains(shown, "item 100\n") || strings.Contains(shown, "item 99\n")):
				t.Errorf("the plan's item is at %d; item 100 kept: %v, item 99: %v", m.mode.item,
					strings.Contains(shown, "item 100\n"), strings.Contains(shown, "item 99\n"))
			case !c.planned && (len(tr.items) > keepItems+1 || strings.Contains(shown, "item 100\n") || m.older.first%2 != 0):
				t.Errorf("%d items kept, item 100 among them: %v, older from seq %d", len(tr.items),
					strings.Contains(shown, "item 100\n"), m.older.first)
			}
		})
	}
}
