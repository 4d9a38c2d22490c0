package ui

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
)

// chattyProvider answers every request at once with a short markdown
// answer streamed a word at a time, and counts the prompt's tokens as a
// server would (4 bytes a token), so that the session's history fills the
// window and is compacted as it would be.
type chattyProvider struct{ stubProvider }

func (chattyProvider) Chat(_ context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	size := 0
	for _, m := range req.Messages {
		size += len(m.Content) + len(m.Thinking)
	}
	for _, w := range strings.Fields(longDayAnswer) {
		if err := fn(provider.Chunk{Content: w + " "}); err != nil {
			return err
		}
	}
	return fn(provider.Chunk{Done: true, DoneReason: "stop",
		Metrics: provider.Metrics{PromptTokens: size / 4, CompletionTokens: longDayTokens}})
}

const longDayAnswer = "The parser reads the **whole line** before it splits it, so a field that holds a `;` " +
	"is cut in two. Quote the field, or read it with `strings.Cut` on the first separator only, and the " +
	"test that fails now will pass."

var longDayTokens = len(strings.Fields(longDayAnswer))

// BenchmarkLongDay runs a TUI session through many turns (an operation
// is one: a prompt, a streamed answer of 40 words, the frames it makes)
// against a model that answers at once, through the real engine, its
// compaction included, saved in a store as the TUI's sessions are, and
// reports the live heap (after a collection) at the 1,000th turn and at
// the last, the time a token costs over the whole run (which the store's
// writes to disk weigh on), and the process's CPU time a token costs
// over the first 1,000 turns and over the last 1,000:
//
//	go test -run X -bench LongDay -benchtime 10000x ./ui/
func BenchmarkLongDay(b *testing.B) {
	l := longDayLoop(b)
	m := l.m
	var at1k uint64
	turns := 0
	var marks []time.Duration // the CPU time every 1,000 turns took, in turn
	from := cpuTime()
	for b.Loop() {
		turns++
		prompt := fmt.Sprintf("turn %d: why does the parser cut the line in two?", turns)
		l.enter(prompt)
		l.until("the answer", func() bool { return m.run == nil })
		m.View()
		if turns%1000 == 0 {
			now := cpuTime()
			marks = append(marks, now-from)
			from = now
		}
		if turns == 1000 {
			b.StopTimer()
			at1k = liveHeap()
			b.StartTimer()
		}
	}
	if s := screen(m); !strings.Contains(s, fmt.Sprintf("turn %d:", turns)) || !strings.Contains(s, "will pass.") {
		b.Fatalf("the last turn is not on the screen:\n%s", s)
	}
	end := liveHeap()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(turns*longDayTokens), "ns/token")
	if at1k > 0 {
		b.ReportMetric(float64(at1k)/(1<<20), "heap-MiB-at-1k")
	}
	if len(marks) >= 2 {
		perToken := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(1000*longDayTokens) }
		b.ReportMetric(perToken(marks[0]), "cpu-ns/token-first-1k")
		b.ReportMetric(perToken(marks[len(marks)-1]), "cpu-ns/token-last-1k")
		b.Logf("ns of CPU a token, each 1,000 turns: %.0f", slices.Collect(func(yield func(float64) bool) {
			for _, d := range marks {
				if !yield(perToken(d)) {
					return
				}
			}
		}))
	}
	b.ReportMetric(float64(end)/(1<<20), "heap-MiB-at-end")
}

// cpuTime is the CPU time the process has taken.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// longDayLoop is a TUI session ready for a long day: the real engine
// against chattyProvider, the session saved in a store.
func longDayLoop(tb testing.TB) *loop {
	tb.Helper()
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	ws, err := tools.OpenWorkspace(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	return readyLoop(tb, Options{
		Engine: orchestrator.Options{Provider: chattyProvider{}, Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(),
			Config: cfg, Recorder: sqlitetest.Open(tb)},
		Dir: ws.Dir(), NoColor: true, Width: 100, Height: 30,
	})
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
