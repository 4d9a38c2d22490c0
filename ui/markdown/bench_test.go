package markdown

import (
	"lathe/ui/markdown/mdgen"
	"slices"
	"strings"
	"testing"
)

// Benchmarks of streaming a ~4,000-token (~16 KB) answer. Run with
//
//	go test -run '^$' -bench 'Stream' -benchtime 1x ./ui/markdown/
//
// (the naive cases take seconds: that is the point).

const (
	benchWidth      = 100
	benchAnswerSize = 15_000 // bytes asked of mdgen.Answer: about 15.5 KB come out
	// benchFrameTokens is how many tokens arrive per frame: at 60 frames a
	// second, a model streaming about 120 tokens a second.
	benchFrameTokens = 2
)

// benchStreamer is one way to show a streamed answer: add a token, and
// render the lines a frame would show.
type benchStreamer interface {
	add(token string)
	lines() []string
}

type incrementalStreamer struct{ m *Doc }

func (s incrementalStreamer) add(token string) { s.m.Append(token) }
func (s incrementalStreamer) lines() []string  { return s.m.Lines(benchWidth) }

// naiveStreamer renders the whole text so far every frame.
type naiveStreamer struct {
	r    *Renderer
	text *strings.Builder
}

func (s naiveStreamer) add(token string) { s.text.WriteString(token) }
func (s naiveStreamer) lines() []string {
	return s.r.render(s.text.String(), benchWidth, false).lines
}

// benchStreamers returns constructors of both streamers, sharing one
// warmed-up renderer each (the first render loads chroma's lexers).
func benchStreamers(b *testing.B, answer string) map[string]func() benchStreamer {
	r := NewRenderer("dark")
	warm := NewDoc(r)
	warm.Append(answer)
	warm.Lines(benchWidth)
	return map[string]func() benchStreamer{
		"incremental": func() benchStreamer { return incrementalStreamer{NewDoc(r)} },
		"naive":       func() benchStreamer { return naiveStreamer{r, &strings.Builder{}} },
	}
}

// BenchmarkStreamToken measures the cost of one token when every token is
// rendered (no frame coalescing, the worst case): Append plus Lines, over
// the first and over the last ~200 tokens of the answer (the same markdown).
func BenchmarkStreamToken(b *testing.B) {
	answer, window := mdgen.Answer(benchAnswerSize)
	tokens := mdgen.Tokens(answer, mdgen.TokenSize)
	streamers := benchStreamers(b, answer)
	b.Logf("answer: %d bytes, %d tokens, %d measured at each end", len(answer), len(tokens), window)
	windows := []struct {
		name     string
		from, to int
	}{
		{"start", 0, window},
		{"end", len(tokens) - window, len(tokens)},
	}
	for _, kind := range []string{"incremental", "naive"} {
		for _, w := range windows {
			b.Run(kind+"/"+w.name, func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					s := streamers[kind]()
					for _, tok := range tokens[:w.from] {
						s.add(tok)
					}
					s.lines()
					b.StartTimer()
					for _, tok := range tokens[w.from:w.to] {
						s.add(tok)
						s.lines()
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(w.to-w.from)), "ns/token")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkStreamAnswer measures the CPU time to stream the whole answer,
// rendering one frame every benchFrameTokens tokens (60 frames a second at
// about 120 tokens a second) and once at the end.
func BenchmarkStreamAnswer(b *testing.B) {
	answer, _ := mdgen.Answer(benchAnswerSize)
	tokens := mdgen.Tokens(answer, mdgen.TokenSize)
	streamers := benchStreamers(b, answer)
	for _, kind := range []string{"incremental", "naive"} {
		b.Run(kind, func(b *testing.B) {
			for range b.N {
				s := streamers[kind]()
				for i, tok := range tokens {
					s.add(tok)
					if i%benchFrameTokens == benchFrameTokens-1 || i == len(tokens)-1 {
						s.lines()
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/answer")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkLinesClean measures Lines when nothing changed: the cached
// slice is returned.
func BenchmarkLinesClean(b *testing.B) {
	m := NewDoc(NewRenderer("dark"))
	answer, _ := mdgen.Answer(benchAnswerSize)
	m.Append(answer)
	m.Lines(benchWidth)
	b.ReportAllocs()
	for b.Loop() {
		m.Lines(benchWidth)
	}
}

// BenchmarkAppend measures Append alone over the whole answer.
func BenchmarkAppend(b *testing.B) {
	answer, _ := mdgen.Answer(benchAnswerSize)
	tokens := mdgen.Tokens(answer, mdgen.TokenSize)
	r := NewRenderer("dark")
	b.ReportAllocs()
	for b.Loop() {
		m := NewDoc(r)
		for _, tok := range tokens {
			m.Append(tok)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tokens)), "ns/token")
}

func TestBenchAnswerIsRealistic(t *testing.T) {
	answer, window := mdgen.Answer(benchAnswerSize)
	tokens := mdgen.Tokens(answer, mdgen.TokenSize)
	if n := len(tokens); n < 3800 || n > 4400 {
		t.Errorf("%d tokens, want about 4000", n)
	}
	if window < 150 || window > 300 {
		t.Errorf("%d tokens measured at each end, want about 200", window)
	}
	if first, last := tokens[:window], tokens[len(tokens)-window:]; !slices.Equal(first, last) {
		t.Errorf("the tokens measured at the start and at the end differ")
	}
	for _, want := range []string{"```go\n", "```bash\n", "```json\n", "|------|", "\n- ", "\n1. "} {
		if !strings.Contains(answer, want) {
			t.Errorf("the answer has no %q", want)
		}
	}
	m := NewDoc(NewRenderer("notty"))
	m.Append(answer)
	m.Finish()
	sameLines(t, "bench answer", m.Lines(benchWidth), wholeRender(t, "notty", benchWidth, answer))
	if len(m.blocks) < 50 {
		t.Errorf("%d blocks, want many", len(m.blocks))
	}
}
