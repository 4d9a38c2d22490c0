package orchestrator

import (
	"slices"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// TestPagedHistory: a history holds its last page, starting where a
// round starts, and reads the older messages a page at a time, none left
// out or read twice: read back to the start, the pages are the history.
func TestPagedHistory(t *testing.T) {
	var all []session.Message
	for i := 0; len(all) < 1000; i++ {
		for _, role := range []string{"user", "assistant", "tool", "tool", "tool"}[:2+i%4] {
			all = append(all, session.Message{Seq: len(all), Message: provider.Message{Role: role}})
		}
	}
	h := paged(&History{}, all, 0, nil)
	if n := len(h.Messages); n < historyPage || n > historyPage+3 || h.Messages[0].Message.Role == "tool" {
		t.Fatalf("the last page holds %d messages, from a %s", n, h.Messages[0].Message.Role)
	}
	if h.Len() != len(all) {
		t.Errorf("Len %d, want %d", h.Len(), len(all))
	}
	got := h.Messages
	for got[0].Seq > 0 {
		page, err := h.Older(t.Context(), got[0].Seq, 37)
		if err != nil || len(page) == 0 || page[0].Message.Role == "tool" {
			t.Fatalf("the page before %d: %d messages, %v", got[0].Seq, len(page), err)
		}
		got = append(slices.Clip(page), got...)
	}
	if !slices.EqualFunc(got, all, func(a, b session.Message) bool { return a.Seq == b.Seq }) {
		t.Errorf("the pages read back are not the history")
	}
	whole, err := h.All(t.Context())
	if err != nil || !slices.EqualFunc(whole, all, func(a, b session.Message) bool { return a.Seq == b.Seq }) {
		t.Errorf("All: %d messages, %v", len(whole), err)
	}
	if small := paged(&History{}, all[:50], 0, nil); small.Older != nil || len(small.Messages) != 50 {
		t.Errorf("a history of one page: %d messages, Older set %v", len(small.Messages), small.Older != nil)
	}
}
