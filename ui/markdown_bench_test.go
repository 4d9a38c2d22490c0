package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"charm.land/glamour/v2"
)

// Benchmarks of streaming a ~4,000-token (~16 KB) answer. Run with
//
//	go test -run '^$' -bench 'Stream' -benchtime 1x ./ui/
//
// (the naive cases take tens of seconds: that is the point).

const (
	benchWidth      = 100
	benchTokenSize  = 4      // bytes per token, about what a model's token is
	benchAnswerSize = 15_000 // bytes asked of benchAnswer: about 15.5 KB come out
	// benchFrameTokens is how many tokens arrive per frame: at 60 frames a
	// second, a model streaming about 120 tokens a second.
	benchFrameTokens = 2
)

// benchVocabulary is the words of the benchmark answer's prose.
const benchVocabulary = `the a model token stream render block cache line width
	terminal answer file buffer reader writer error value function package build test
	run config request response client server context cancel channel goroutine slice map
	string byte rune index offset length status result output input path directory`

// benchGen writes the parts of a deterministic answer.
type benchGen struct {
	b     strings.Builder
	rng   *rand.Rand
	words []string
}

// benchAnswer builds a deterministic markdown answer of about size bytes,
// like a model writes: sections of prose with inline code and links, lists,
// tables, and code in Go, shell and JSON with blank lines inside. The
// answer starts and ends with the same short section (window tokens long),
// so that the tokens measured at its start and at its end are the same
// markdown and differ only in how much text comes before them.
func benchAnswer(size int) (answer string, window int) {
	g := &benchGen{rng: rand.New(rand.NewPCG(42, 4242)), words: strings.Fields(benchVocabulary)}
	g.overview()
	edge := g.b.String()
	edge += strings.Repeat("\n", (benchTokenSize-len(edge)%benchTokenSize)%benchTokenSize)
	g.b.Reset()
	g.b.WriteString(edge)
	for i := 0; g.b.Len() < size-len(edge); i++ {
		g.section(i)
	}
	g.b.WriteString(strings.Repeat("\n", (benchTokenSize-g.b.Len()%benchTokenSize)%benchTokenSize))
	g.b.WriteString(edge)
	return g.b.String(), len(edge) / benchTokenSize
}

// overview writes the short section the answer starts and ends with.
func (g *benchGen) overview() {
	g.b.WriteString("## Overview\n\n" + g.sentence() + " " + g.sentence() + "\n\n")
	for range 3 {
		g.b.WriteString("- " + g.sentence() + "\n")
	}
	g.b.WriteString("\n```bash\n")
	for range 3 {
		fmt.Fprintf(&g.b, "go %s ./%s/...\n", g.word(), g.word())
	}
	g.b.WriteString("```\n\n" + g.sentence() + "\n\n")
}

// section writes the i-th middle section.
func (g *benchGen) section(i int) {
	fmt.Fprintf(&g.b, "## Step %d: %s the %s\n\n", i+1, g.word(), g.word())
	g.paragraph()
	g.list(i%2 == 1)
	switch i % 3 {
	case 0:
		g.goCode()
	case 1:
		g.shell()
	default:
		g.json()
		g.table()
	}
	g.paragraph()
}

func (g *benchGen) word() string { return g.words[g.rng.IntN(len(g.words))] }

func (g *benchGen) sentence() string {
	words := make([]string, 6+g.rng.IntN(10))
	for i := range words {
		words[i] = g.word()
		switch g.rng.IntN(12) {
		case 0:
			words[i] = "`" + words[i] + "()`"
		case 1:
			words[i] = "**" + words[i] + "**"
		case 2:
			words[i] = "[" + words[i] + "](https://example.com/" + words[i] + ")"
		}
	}
	return strings.ToUpper(words[0][:1]) + words[0][1:] + " " + strings.Join(words[1:], " ") + "."
}

func (g *benchGen) paragraph() {
	for range 2 + g.rng.IntN(3) {
		g.b.WriteString(g.sentence())
		g.b.WriteString(" ")
	}
	g.b.WriteString("\n\n")
}

func (g *benchGen) list(ordered bool) {
	for i := range 3 + g.rng.IntN(3) {
		if ordered {
			fmt.Fprintf(&g.b, "%d. %s\n", i+1, g.sentence())
		} else {
			fmt.Fprintf(&g.b, "- %s\n", g.sentence())
		}
	}
	g.b.WriteString("\n")
}

func (g *benchGen) goCode() {
	fmt.Fprintf(&g.b, "```go\nfunc %s%d(ctx context.Context, r io.Reader) error {\n", g.word(), g.rng.IntN(100))
	for i := range 3 + g.rng.IntN(4) {
		fmt.Fprintf(&g.b, "\t%s, err := %s.%s(ctx, %q)\n\tif err != nil {\n\t\treturn fmt.Errorf(\"%s: %%w\", err)\n\t}\n",
			g.word(), g.word(), strings.ToUpper(g.word()[:1]), g.word(), g.word())
		if i%2 == 1 {
			g.b.WriteString("\n\t// " + g.sentence() + "\n")
		}
	}
	g.b.WriteString("\treturn nil\n}\n```\n\n")
}

func (g *benchGen) shell() {
	g.b.WriteString("```bash\n# " + g.sentence() + "\n")
	for range 3 + g.rng.IntN(4) {
		fmt.Fprintf(&g.b, "go %s ./%s/... -%s=%d\n", g.word(), g.word(), g.word(), g.rng.IntN(1000))
	}
	g.b.WriteString("\nexport LATHE_" + strings.ToUpper(g.word()) + "=1\n```\n\n")
}

func (g *benchGen) json() {
	g.b.WriteString("```json\n{\n")
	for i := range 4 + g.rng.IntN(4) {
		if i > 0 {
			g.b.WriteString(",\n")
		}
		fmt.Fprintf(&g.b, "  %q: {\"%s\": %d, \"ok\": true}", g.word(), g.word(), g.rng.IntN(1000))
	}
	g.b.WriteString("\n}\n```\n\n")
}

func (g *benchGen) table() {
	g.b.WriteString("| Name | Kind | Size |\n|------|------|-----:|\n")
	for range 3 + g.rng.IntN(3) {
		fmt.Fprintf(&g.b, "| `%s` | %s | %d |\n", g.word(), g.word(), g.rng.IntN(10000))
	}
	g.b.WriteString("\n")
}

// benchTokens cuts text into pieces of n bytes.
func benchTokens(text string, n int) []string {
	var tokens []string
	for len(text) > n {
		tokens = append(tokens, text[:n])
		text = text[n:]
	}
	return append(tokens, text)
}

// benchStreamer is one way to show a streamed answer: add a token, and
// render the lines a frame would show.
type benchStreamer interface {
	add(token string)
	lines() []string
}

type incrementalStreamer struct{ m *Markdown }

func (s incrementalStreamer) add(token string) { s.m.Append(token) }
func (s incrementalStreamer) lines() []string  { return s.m.Lines(benchWidth) }

// naiveStreamer renders the whole text so far with glamour every frame,
// with the same post-processing.
type naiveStreamer struct {
	tr   *glamour.TermRenderer
	text *strings.Builder
}

func (s naiveStreamer) add(token string) { s.text.WriteString(token) }
func (s naiveStreamer) lines() []string {
	out, err := s.tr.Render(s.text.String())
	if err != nil {
		panic(err)
	}
	return mdChunkOf(out).lines
}

// benchStreamers returns constructors of both streamers, sharing one
// warmed-up renderer each (the first render loads chroma's lexers).
func benchStreamers(b *testing.B, answer string) map[string]func() benchStreamer {
	r := NewMarkdownRenderer("dark")
	warm := NewMarkdown(r)
	warm.Append(answer)
	warm.Lines(benchWidth)
	tr, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"),
		glamour.WithWordWrap(benchWidth), glamour.WithChromaFormatter(mdChromaFormatter))
	if err != nil {
		b.Fatal(err)
	}
	return map[string]func() benchStreamer{
		"incremental": func() benchStreamer { return incrementalStreamer{NewMarkdown(r)} },
		"naive":       func() benchStreamer { return naiveStreamer{tr, &strings.Builder{}} },
	}
}

// BenchmarkStreamToken measures the cost of one token when every token is
// rendered (no frame coalescing, the worst case): Append plus Lines, over
// the first and over the last ~200 tokens of the answer (the same markdown).
func BenchmarkStreamToken(b *testing.B) {
	answer, window := benchAnswer(benchAnswerSize)
	tokens := benchTokens(answer, benchTokenSize)
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
	answer, _ := benchAnswer(benchAnswerSize)
	tokens := benchTokens(answer, benchTokenSize)
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
	m := NewMarkdown(NewMarkdownRenderer("dark"))
	answer, _ := benchAnswer(benchAnswerSize)
	m.Append(answer)
	m.Lines(benchWidth)
	b.ReportAllocs()
	for b.Loop() {
		m.Lines(benchWidth)
	}
}

// BenchmarkAppend measures Append alone over the whole answer.
func BenchmarkAppend(b *testing.B) {
	answer, _ := benchAnswer(benchAnswerSize)
	tokens := benchTokens(answer, benchTokenSize)
	r := NewMarkdownRenderer("dark")
	b.ReportAllocs()
	for b.Loop() {
		m := NewMarkdown(r)
		for _, tok := range tokens {
			m.Append(tok)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tokens)), "ns/token")
}

func TestBenchAnswerIsRealistic(t *testing.T) {
	answer, window := benchAnswer(benchAnswerSize)
	tokens := benchTokens(answer, benchTokenSize)
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
	m := NewMarkdown(NewMarkdownRenderer("notty"))
	m.Append(answer)
	m.Finish()
	sameLines(t, "bench answer", m.Lines(benchWidth), wholeRender(t, "notty", benchWidth, answer))
	if len(m.blocks) < 50 {
		t.Errorf("%d blocks, want many", len(m.blocks))
	}
}
