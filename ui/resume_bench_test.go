package ui

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/ui/markdown/mdgen"
)

// history is a restored session of about n messages as lathe saves them:
// prompts, replies with thinking, markdown and a call, tool results of a
// few KB, and final markdown answers with code.
func history(n int) *orchestrator.History {
	h := &orchestrator.History{ID: "0123456789abcdef", Title: "a long session"}
	add := func(m provider.Message, meta *session.ToolMeta) {
		h.Messages = append(h.Messages, session.Message{Seq: len(h.Messages), Message: m, Tool: meta})
	}
	for i := 0; len(h.Messages) < n; i++ {
		add(provider.Message{Role: "user", Content: fmt.Sprintf("step %d: look at the parser and fix what is wrong", i)}, nil)
		answer, _ := mdgen.Answer(300 + (i*137)%1500)
		add(provider.Message{Role: "assistant", Content: "Let me read the file first.",
			Thinking: mdgen.Thinking(400, " "), ToolCalls: []provider.ToolCall{{ID: "c", Name: "read_file",
				Arguments: []byte(`{"path":"parse.go"}`)}}}, nil)
		add(provider.Message{Role: "tool", ToolName: "read_file", ToolCallID: "c",
			Content: strings.Repeat("func parse(line string) error { return nil }\n", 20+(i*31)%120)},
			&session.ToolMeta{Subject: "parse.go", Outcome: "ok", Summary: "40 lines", Duration: time.Millisecond})
		add(provider.Message{Role: "assistant", Content: answer}, nil)
	}
	h.Messages = h.Messages[:n]
	return h
}

// BenchmarkResume measures resuming a long session in the TUI: the update
// that shows its history (the first frame after it included), and how much
// longer it takes than the same update for a new session (the goal: a few
// ms, whatever the length; x-new-session is the ratio), then the slowest frame while scrolling to its
// top a page at a time: the median over the scrolls of each one's slowest
// frame, and the slowest of them all (which, over thousands of frames,
// includes the odd garbage collection).
func BenchmarkResume(b *testing.B) {
	var fresh time.Duration // the update that readies a new session
	const freshRuns = 50
	for range freshRuns {
		m, _ := testModel(b)
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		start := time.Now()
		m.Update(preparedMsg{Prepared: orchestrator.Prepared{Model: m.conn.info}})
		m.View()
		fresh += time.Since(start)
	}
	fresh /= freshRuns
	for _, n := range []int{200, 1000, 5000, 100_000} {
		h := history(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var shown time.Duration
			var slowest []time.Duration // each scroll's slowest frame
			for b.Loop() {
				b.StopTimer()
				m, _ := testModel(b)
				m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
				b.StartTimer()
				start := time.Now()
				m.Update(preparedMsg{Prepared: orchestrator.Prepared{Model: m.conn.info, History: h}})
				m.View()
				shown += time.Since(start)
				b.StopTimer()
				var worst time.Duration
				for range 40 {
					start := time.Now()
					m.Update(keyPress("pgup"))
					m.View()
					worst = max(worst, time.Since(start))
				}
				slowest = append(slowest, worst)
				b.StartTimer()
			}
			slices.Sort(slowest)
			b.ReportMetric(float64(slowest[len(slowest)/2].Microseconds())/1000, "ms-slowest-scroll-frame")
			b.ReportMetric(float64(slowest[len(slowest)-1].Microseconds())/1000, "ms-worst-scroll-frame")
			b.ReportMetric(float64((shown/time.Duration(b.N)-fresh).Microseconds())/1000, "ms-over-new-session")
			b.ReportMetric(float64(shown/time.Duration(b.N))/float64(fresh), "x-new-session")
		})
	}
}

// BenchmarkResumeMemory reports the live heap (after a collection) of the
// TUI's model once it shows a resumed history of 100,000 messages, the
// history included (a resume holds it), against a new session's.
func BenchmarkResumeMemory(b *testing.B) {
	const n = 100_000
	var fresh, resumed uint64
	for b.Loop() {
		base := liveHeap()
		m, _ := testModel(b)
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		m.Update(preparedMsg{Prepared: orchestrator.Prepared{Model: m.conn.info}})
		m.View()
		fresh = liveHeap() - base
		runtime.KeepAlive(m)
		base = liveHeap()
		m, _ = testModel(b)
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		m.Update(preparedMsg{Prepared: orchestrator.Prepared{Model: m.conn.info, History: history(n)}})
		m.View()
		resumed = liveHeap() - base
		runtime.KeepAlive(m)
	}
	b.ReportMetric(float64(fresh)/(1<<20), "MiB-new-session")
	b.ReportMetric(float64(resumed)/(1<<20), "MiB-resumed")
	b.ReportMetric(float64(resumed)/float64(fresh), "x-new-session")
}
