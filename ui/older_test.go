package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/orchestrator/session"
)

// pagedHistory is h as a resume gives it: its last messages, the older
// ones read a page at a time, each page read counted in reads.
func pagedHistory(h *orchestrator.History, last int, reads *int) *orchestrator.History {
	all := h.Messages
	p := *h
	p.Messages = all[pageFrom(all, len(all)-last):]
	p.Older = func(_ context.Context, before, n int) ([]session.Message, error) {
		*reads++
		return all[pageFrom(all, before-n+1):before], nil // pages of odd lengths
	}
	return &p
}

// transcriptLines are every line of the transcript, each item rendered.
func transcriptLines(m *model) []string {
	var out []string
	for _, it := range m.transcript.items {
		for _, l := range it.lines(m.transcript.width, m.transcript.st) {
			out = append(out, ansi.Strip(l))
		}
	}
	return out
}

// TestResumeShowsOlderPagesOnScroll: a resumed session of 5,000 messages
// shows its last messages only, below a line that stands for the others;
// scrolling up reads them a page at a time, until its first prompt shows
// at the top, and the transcript then is line for line the one the
// whole history shown at once makes, the mode records and the mark of
// the compaction in their places.
func TestResumeShowsOlderPagesOnScroll(t *testing.T) {
	h := history(5000)
	h.Compaction = &session.Compaction{Seq: 2400, Summary: "what was done", Created: time.Now()}
	h.Modes = []session.ModeRecord{{Seq: 0, Mode: "build", Reason: "start"}, {Seq: 1201, Mode: "plan", Reason: "asked"},
		{Seq: 1300, Mode: "build", Reason: "plan approved"}, {Seq: 4999, Mode: "plan", Reason: "asked"}}

	whole, _ := testModel(t)
	whole.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	items, _ := whole.pageItems(h, h.Messages, true)
	for _, it := range items {
		whole.transcript.add(it)
	}
	want := transcriptLines(whole)

	reads := 0
	m, _ := testModel(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	_, cmd := m.Update(preparedMsg{Prepared: orchestrator.Prepared{Model: m.conn.info, History: pagedHistory(h, 398, &reads)}})
	drain(m, cmd)
	if n := len(m.transcript.items); n > 200 {
		t.Fatalf("the resume made %d items for its first screen", n)
	}
	s := screen(m)
	if !strings.Contains(s, `Resumed "a long session": 5000 messages.`) || strings.Contains(s, "step 0:") {
		t.Fatalf("the screen after the resume:\n%s", s)
	}
	for range 5000 {
		_, cmd := m.Update(keyPress("ctrl+home"))
		drain(m, cmd)
		if m.older == nil {
			break
		}
	}
	if m.older != nil || reads == 0 {
		t.Fatalf("the older messages are not all shown after scrolling up (%d pages read)", reads)
	}
	_, cmd = m.Update(keyPress("ctrl+home"))
	drain(m, cmd)
	if s := screen(m); !strings.Contains(s, "step 0: look at the parser") {
		t.Errorf("the top of the transcript is not the first prompt:\n%s", s)
	}
	got := transcriptLines(m)
	got = got[:len(got)-2] // the notice of the resume
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("the transcript paged in differs from the whole history's at line %d of %d/%d:\n%q\n%q", i, len(got), len(want),
			got[i:min(i+5, len(got))], want[i:min(i+5, len(want))])
	}
	if !slices.Contains(got, indent+"▸ plan mode (asked).") || !slices.ContainsFunc(got, func(l string) bool {
		return strings.Contains(l, "Summarized for the model from here up")
	}) {
		t.Errorf("the mode records or the compaction's mark are missing")
	}
}

// TestResumeRevealsAnOlderMessage: a message /search found, older than
// the last messages a resume shows, is read with the pages above them and
// shown at the top of the window.
func TestResumeRevealsAnOlderMessage(t *testing.T) {
	reads := 0
	m, _ := testModel(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.transcript.revealAt = 808 // "step 202: ..."
	_, cmd := m.Update(preparedMsg{Prepared: orchestrator.Prepared{Model: m.conn.info, History: pagedHistory(history(5000), 200, &reads)}})
	drain(m, cmd)
	lines := strings.Split(screen(m), "\n")
	if reads == 0 || !strings.Contains(lines[0], "step 202: look at the parser") {
		t.Errorf("the message found is not at the top (%d pages read):\n%s", reads, strings.Join(lines, "\n"))
	}
	if m.status.note != "" {
		t.Errorf("status: %q", m.status.note)
	}
}
