package ui

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/tools"
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
		h := pagedHistory(history(n), 200, new(int)) // as a resume gives it
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
// TUI's model once it shows a resumed history of 100,000 messages as a
// resume gives it (its last 200 messages, the others read from the
// store when scrolled back to: the store's copy, made before, is not
// counted), against a new session's.
func BenchmarkResumeMemory(b *testing.B) {
	const n = 100_000
	var fresh, resumed uint64
	store := history(n)
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
		m.Update(preparedMsg{Prepared: orchestrator.Prepared{Model: m.conn.info, History: pagedHistory(store, 200, new(int))}})
		m.View()
		resumed = liveHeap() - base
		runtime.KeepAlive(m)
	}
	b.ReportMetric(float64(fresh)/(1<<20), "MiB-new-session")
	b.ReportMetric(float64(resumed)/(1<<20), "MiB-resumed")
	b.ReportMetric(float64(resumed)/float64(fresh), "x-new-session")
}

// BenchmarkResumeAtScale resumes the long session of a database filled by
// scripts/gensessions (with -compact, as lathe would have compacted a
// session that long) at the path LATHE_SESSIONS_SCALE names, as the TUI
// does: the session's header read, the first frame made, then the rest
// read from the store, restored by the engine and shown; skipped without
// it. It reports the time to the first frame against a new session's,
// the time until the history is shown, and the live heap then (after a
// collection), the engine's included, against a new session's;
// from-compaction reads it from its compaction on, as a resume does,
// whole reads it whole.
//
//	go run ./scripts/gensessions -messages 100000 -long 100000 -sessions 1 -compact 2000 /tmp/long.db
//	LATHE_SESSIONS_SCALE=/tmp/long.db go test -run X -bench ResumeAtScale -benchtime 5x ./ui/
func BenchmarkResumeAtScale(b *testing.B) {
	path := os.Getenv("LATHE_SESSIONS_SCALE")
	if path == "" {
		b.Skip("LATHE_SESSIONS_SCALE names no database filled by scripts/gensessions")
	}
	db, err := sqlite.Open(b.Context(), path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const long = "0000000000000000"
	open := func(b *testing.B, loader orchestrator.ResumeLoader) (frame, shown time.Duration, heap uint64) {
		base := liveHeap()
		start := time.Now()
		var header *session.Saved
		if loader != nil {
			h, err := db.Header(b.Context(), long)
			if err != nil {
				b.Fatal(err)
			}
			header = &h
		}
		m := scaleModel(b, db, header, loader)
		m.View()
		frame = time.Since(start)
		prepare(m)
		m.View()
		shown = time.Since(start)
		if loader != nil && !strings.Contains(screen(m), "Resumed") {
			b.Fatalf("not resumed:\n%s", screen(m))
		}
		heap = liveHeap() - base
		if err := db.Release(b.Context(), long); err != nil {
			b.Fatal(err)
		}
		runtime.KeepAlive(m)
		return frame, shown, heap
	}
	for _, c := range []struct {
		name   string
		loader orchestrator.ResumeLoader
	}{{"from-compaction", db}, {"whole", wholeLoader{db}}} {
		b.Run(c.name, func(b *testing.B) {
			var freshFrame, fresh, frame, resumed time.Duration
			var freshHeap, resumedHeap uint64
			for b.Loop() {
				f, t, h := open(b, nil)
				freshFrame, fresh, freshHeap = freshFrame+f, fresh+t, freshHeap+h
				f, t, h = open(b, c.loader)
				frame, resumed, resumedHeap = frame+f, resumed+t, resumedHeap+h
			}
			n := float64(b.N)
			b.ReportMetric(float64(freshFrame.Microseconds())/1000/n, "ms-first-frame-new")
			b.ReportMetric(float64(frame.Microseconds())/1000/n, "ms-first-frame-resumed")
			b.ReportMetric(float64(frame)/float64(freshFrame), "x-first-frame")
			b.ReportMetric(float64(fresh.Microseconds())/1000/n, "ms-ready-new")
			b.ReportMetric(float64(resumed.Microseconds())/1000/n, "ms-history-shown")
			b.ReportMetric(float64(freshHeap)/(1<<20)/n, "MiB-new-session")
			b.ReportMetric(float64(resumedHeap)/(1<<20)/n, "MiB-resumed")
			b.ReportMetric(float64(resumedHeap)/float64(freshHeap), "x-heap")
		})
	}
}

// wholeLoader reads a session to resume whole.
type wholeLoader struct{ db *sqlite.DB }

func (w wholeLoader) LoadResume(ctx context.Context, id string) (session.Saved, error) {
	return w.db.Load(ctx, id)
}

// scaleModel is a TUI model recording in rec (nil for none), resuming the
// session whose header is given (nil for a new one) through loader.
func scaleModel(tb testing.TB, rec orchestrator.Recorder, header *session.Saved, loader orchestrator.ResumeLoader) *model {
	tb.Helper()
	ws, err := tools.OpenWorkspace(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	m := newModel(tb.Context(), Options{
		Engine: orchestrator.Options{Provider: stubProvider{}, Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(),
			Config: cfg, Recorder: rec},
		Resume: header, ResumeLoader: loader,
		Suggested: "qwen3:8b", Server: "http://127.0.0.1:11434",
		Dir: "/gen/project0", Home: "/home/dev", NoColor: true, Width: 100, Height: 30,
	})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return m
}
