// Package mdgen writes deterministic markdown like a model's answers and
// reasoning, for benchmarks of lathe's rendering.
package mdgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// TokenSize is about how many bytes a model's token has.
const TokenSize = 4

// New returns a generator seeded with seed.
func New(seed1, seed2 uint64) *Gen {
	return &Gen{rng: rand.New(rand.NewPCG(seed1, seed2)), words: strings.Fields(vocabulary)}
}

// Thinking is about size bytes of reasoning: sentences in paragraphs of
// four, the paragraphs joined by sep.
func Thinking(size int, sep string) string {
	g := New(7, 77)
	for i := 0; g.b.Len() < size; i++ {
		switch {
		case i == 0:
		case i%4 == 0:
			g.b.WriteString(sep)
		default:
			g.b.WriteString(" ")
		}
		g.b.WriteString(g.Sentence())
	}
	return g.b.String()
}

// vocabulary is the words of the benchmark answer's prose.
const vocabulary = `the a model token stream render block cache line width
	terminal answer file buffer reader writer error value function package build test
	run config request response client server context cancel channel goroutine slice map
	string byte rune index offset length status result output input path directory`

// Gen writes the parts of a deterministic answer.
type Gen struct {
	b     strings.Builder
	rng   *rand.Rand
	words []string
}

// Answer builds a deterministic markdown answer of about size bytes,
// like a model writes: sections of prose with inline code and links, lists,
// tables, and code in Go, shell and JSON with blank lines inside. The
// answer starts and ends with the same short section (window tokens long),
// so that the tokens measured at its start and at its end are the same
// markdown and differ only in how much text comes before them.
func Answer(size int) (answer string, window int) {
	g := New(42, 4242)
	g.overview()
	edge := g.b.String()
	edge += strings.Repeat("\n", (TokenSize-len(edge)%TokenSize)%TokenSize)
	g.b.Reset()
	g.b.WriteString(edge)
	for i := 0; g.b.Len() < size-len(edge); i++ {
		g.section(i)
	}
	g.b.WriteString(strings.Repeat("\n", (TokenSize-g.b.Len()%TokenSize)%TokenSize))
	g.b.WriteString(edge)
	return g.b.String(), len(edge) / TokenSize
}

// overview writes the short section the answer starts and ends with.
func (g *Gen) overview() {
	g.b.WriteString("## Overview\n\n" + g.Sentence() + " " + g.Sentence() + "\n\n")
	for range 3 {
		g.b.WriteString("- " + g.Sentence() + "\n")
	}
	g.b.WriteString("\n```bash\n")
	for range 3 {
		fmt.Fprintf(&g.b, "go %s ./%s/...\n", g.Word(), g.Word())
	}
	g.b.WriteString("```\n\n" + g.Sentence() + "\n\n")
}

// section writes the i-th middle section.
func (g *Gen) section(i int) {
	fmt.Fprintf(&g.b, "## Step %d: %s the %s\n\n", i+1, g.Word(), g.Word())
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

func (g *Gen) Word() string { return g.words[g.rng.IntN(len(g.words))] }

func (g *Gen) Sentence() string {
	words := make([]string, 6+g.rng.IntN(10))
	for i := range words {
		words[i] = g.Word()
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

func (g *Gen) paragraph() {
	for range 2 + g.rng.IntN(3) {
		g.b.WriteString(g.Sentence())
		g.b.WriteString(" ")
	}
	g.b.WriteString("\n\n")
}

func (g *Gen) list(ordered bool) {
	for i := range 3 + g.rng.IntN(3) {
		if ordered {
			fmt.Fprintf(&g.b, "%d. %s\n", i+1, g.Sentence())
		} else {
			fmt.Fprintf(&g.b, "- %s\n", g.Sentence())
		}
	}
	g.b.WriteString("\n")
}

func (g *Gen) goCode() {
	fmt.Fprintf(&g.b, "```go\nfunc %s%d(ctx context.Context, r io.Reader) error {\n", g.Word(), g.rng.IntN(100))
	for i := range 3 + g.rng.IntN(4) {
		fmt.Fprintf(&g.b, "\t%s, err := %s.%s(ctx, %q)\n\tif err != nil {\n\t\treturn fmt.Errorf(\"%s: %%w\", err)\n\t}\n",
			g.Word(), g.Word(), strings.ToUpper(g.Word()[:1]), g.Word(), g.Word())
		if i%2 == 1 {
			g.b.WriteString("\n\t// " + g.Sentence() + "\n")
		}
	}
	g.b.WriteString("\treturn nil\n}\n```\n\n")
}

func (g *Gen) shell() {
	g.b.WriteString("```bash\n# " + g.Sentence() + "\n")
	for range 3 + g.rng.IntN(4) {
		fmt.Fprintf(&g.b, "go %s ./%s/... -%s=%d\n", g.Word(), g.Word(), g.Word(), g.rng.IntN(1000))
	}
	g.b.WriteString("\nexport LATHE_" + strings.ToUpper(g.Word()) + "=1\n```\n\n")
}

func (g *Gen) json() {
	g.b.WriteString("```json\n{\n")
	for i := range 4 + g.rng.IntN(4) {
		if i > 0 {
			g.b.WriteString(",\n")
		}
		fmt.Fprintf(&g.b, "  %q: {\"%s\": %d, \"ok\": true}", g.Word(), g.Word(), g.rng.IntN(1000))
	}
	g.b.WriteString("\n}\n```\n\n")
}

func (g *Gen) table() {
	g.b.WriteString("| Name | Kind | Size |\n|------|------|-----:|\n")
	for range 3 + g.rng.IntN(3) {
		fmt.Fprintf(&g.b, "| `%s` | %s | %d |\n", g.Word(), g.Word(), g.rng.IntN(10000))
	}
	g.b.WriteString("\n")
}

// Tokens cuts text into pieces of n bytes.
func Tokens(text string, n int) []string {
	var tokens []string
	for len(text) > n {
		tokens = append(tokens, text[:n])
		text = text[n:]
	}
	return append(tokens, text)
}
