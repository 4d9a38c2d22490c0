package ui

import (
	"testing"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/ui/markdown/mdgen"
)

// BenchmarkStreamTokens measures what the TUI's model spends on one
// streamed token at 200 tokens a second and the default frame rate: each
// token comes in a message of its own (the worst case: the bridge gathers a
// frame's worth), followed by View (Bubble Tea calls it after every
// message), and a frame renders what changed every 200/fps tokens. Compare
// with mdstream's BenchmarkStreamToken, the markdown alone;
// scripts/tui-cpu.sh measures the whole process.
func BenchmarkStreamTokens(b *testing.B) {
	answer, _ := mdgen.Answer(12000)
	tokens := mdgen.Tokens(answer, mdgen.TokenSize)
	const perFrame = 200 / config.DefaultFPS
	n := 0
	for b.Loop() {
		b.StopTimer()
		m, _ := testModel(b)
		m.width, m.height = 100, 32
		m.beginRun("write the overview")
		m.Update(engineMsg{orchestrator.TurnStarted{Turn: 1}})
		b.StartTimer()
		for i, tok := range tokens {
			m.Update(engineMsg{orchestrator.TextDelta{Turn: 1, Text: tok}})
			_ = m.View()
			if i%perFrame == perFrame-1 {
				m.Update(frameMsg{})
				_ = m.View()
			}
		}
		n += len(tokens)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/token")
	b.ReportMetric(0, "ns/op")
}
