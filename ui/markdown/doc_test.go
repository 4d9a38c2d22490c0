package markdown

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// mdCorpus returns the realistic answers in testdata/markdown, by file name.
func mdCorpus(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "markdown", "*.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no markdown corpus: %v", err)
	}
	corpus := make(map[string]string, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		corpus[filepath.Base(p)] = string(b)
	}
	return corpus
}

// wholeRender is the oracle: the render of the whole text at width, in
// one go, by a renderer of its own.
func wholeRender(t testing.TB, style string, width int, text string) []string {
	t.Helper()
	return NewRenderer(style).render(text, width, false).lines
}

// sameLines fails the test at the first line where got and want differ.
func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w || i >= len(got) || i >= len(want) {
			t.Fatalf("%s: line %d of %d (want %d lines):\n got %q\nwant %q", what, i, len(got), len(want), g, w)
		}
	}
}

func TestMarkdownMatchesWholeRender(t *testing.T) {
	corpus := mdCorpus(t)
	// minBlocks guards against a splitter that never splits, which would
	// pass the oracle trivially.
	minBlocks := map[string]int{
		"go_answer.md": 10, "lists.md": 5, "quotes.md": 6, "tight.md": 8,
		"unclosed.md": 2, "broken.md": 3, "refs.md": 1,
	}
	for _, style := range []string{"dark", "notty"} {
		for _, width := range []int{80, 36} {
			r := NewRenderer(style)
			for name, text := range corpus {
				for _, variant := range []string{text, strings.TrimSuffix(text, "\n")} {
					m := NewDoc(r)
					m.Append(variant)
					m.Finish()
					got := m.Lines(width)
					sameLines(t, style+"/"+name, got, wholeRender(t, style, width, variant))
					if min, ok := minBlocks[name]; !ok || len(m.blocks) < min {
						t.Errorf("%s: %d blocks, want at least %d", name, len(m.blocks), min)
					}
				}
			}
		}
	}
}

// TestMarkdownStreamingMatches feeds every corpus text in random pieces and
// checks after every piece that the lines equal the whole render of the
// text so far, then that the finished lines equal those of the text fed at
// once.
func TestMarkdownStreamingMatches(t *testing.T) {
	corpus := mdCorpus(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const width = 60
	r := NewRenderer("dark")
	for name, text := range corpus {
		t.Run(name, func(t *testing.T) {
			m := NewDoc(r)
			for rest := text; rest != ""; {
				n := min(1+rng.IntN(24), len(rest))
				m.Append(rest[:n])
				rest = rest[n:]
				sameLines(t, "after "+m.Text(), m.Lines(width), wholeRender(t, "dark", width, m.Text()))
			}
			m.Finish()
			once := NewDoc(r)
			once.Append(text)
			once.Finish()
			sameLines(t, "finished", m.Lines(width), once.Lines(width))
			if m.Text() != text {
				t.Fatalf("Text() = %q, want %q", m.Text(), text)
			}
		})
	}
}

func TestMarkdownRendersOnlyWhatChanged(t *testing.T) {
	r := NewRenderer("dark")
	m := NewDoc(r)
	steps := []struct {
		name    string
		appends string
		renders int // renders the next Lines call may do
	}{
		// The heading is finished as soon as the next block's first letter
		// arrives, so it is rendered on its own once, and the tail too.
		{"first text", "# Title\n\nSome text", 2},
		{"nothing changed", "", 0},
		{"tail grows", " and more", 1},
		{"line complete", "\n", 1},
		{"a dash cannot tell yet", "\n- item", 1},
		{"the list line is complete: paragraph finished", "\n", 2},
		{"still nothing", "", 0},
	}
	for _, s := range steps {
		m.Append(s.appends)
		before := r.renders
		lines := m.Lines(70)
		if got := r.renders - before; got != s.renders {
			t.Errorf("%s: %d renders, want %d", s.name, got, s.renders)
		}
		again := m.Lines(70)
		if r.renders != before+s.renders {
			t.Errorf("%s: second Lines rendered again", s.name)
		}
		if len(again) == 0 || &again[0] != &lines[0] {
			t.Errorf("%s: second Lines did not return the cached lines", s.name)
		}
	}
	if n := len(m.blocks); n != 2 {
		t.Errorf("%d finished blocks, want 2", n)
	}
}

func TestMarkdownAppendNeverRenders(t *testing.T) {
	r := NewRenderer("dark")
	m := NewDoc(r)
	for _, text := range mdCorpus(t) {
		m.Append(text)
	}
	m.Finish()
	if r.renders != 0 {
		t.Fatalf("Append and Finish rendered %d times", r.renders)
	}
	if r.code != nil {
		t.Fatal("the code highlighter was created before Lines")
	}
}

func TestMarkdownWidthChange(t *testing.T) {
	text := mdCorpus(t)["go_answer.md"]
	r := NewRenderer("dark")
	m := NewDoc(r)
	m.Append(text)
	m.Finish()
	for _, width := range []int{80, 40, 80, 120} {
		before := r.renders
		sameLines(t, "width change", m.Lines(width), wholeRender(t, "dark", width, text))
		if r.renders-before != len(m.blocks) {
			t.Errorf("width %d: %d renders, want one per block (%d)", width, r.renders-before, len(m.blocks))
		}
		for i, l := range m.Lines(width) {
			if w := ansi.StringWidth(l); w > width {
				t.Fatalf("width %d: line %d is %d cells wide: %q", width, i, w, l)
			}
		}
	}
}

func TestMarkdownFinishUnclosedFence(t *testing.T) {
	text := "Here is the fix:\n\n```rust\nfn main() {\n\n    let x = 5;"
	r := NewRenderer("notty")
	m := NewDoc(r)
	m.Append(text)
	streaming := append([]string(nil), m.Lines(50)...)
	before := r.renders
	m.Finish()
	got := m.Lines(50)
	if r.renders != before {
		t.Errorf("Finish made Lines render the unchanged tail again")
	}
	sameLines(t, "finished", got, wholeRender(t, "notty", 50, text))
	sameLines(t, "finished vs streaming", got, streaming)
	if !strings.Contains(strings.Join(got, "\n"), "let x = 5;") {
		t.Errorf("the unclosed fence's last line is missing: %q", got)
	}
}

func TestMarkdownAppendAfterFinish(t *testing.T) {
	r := NewRenderer("notty")
	m := NewDoc(r)
	m.Append("Para one\n\nPara")
	m.Finish()
	m.Lines(40)
	m.Append(" two\n\n- item")
	m.Finish()
	sameLines(t, "resumed", m.Lines(40), wholeRender(t, "notty", 40, "Para one\n\nPara two\n\n- item"))
}

func TestMarkdownReferenceDefinitionMakesAllTail(t *testing.T) {
	r := NewRenderer("notty")
	m := NewDoc(r)
	m.Append("See [the spec][s].\n\n## Heading\n\nText\n\n")
	if len(m.blocks) == 0 {
		t.Fatal("no block finished before the definition")
	}
	m.Lines(60)
	m.Append("[s]: https://go.dev/ref/spec")
	if len(m.blocks) != 0 {
		t.Fatalf("%d finished blocks after a link definition, want none", len(m.blocks))
	}
	got := m.Lines(60)
	sameLines(t, "with definition", got, wholeRender(t, "notty", 60, m.Text()))
	if !strings.Contains(got[0], "https://go.dev/ref/spec") {
		t.Errorf("the reference link is not resolved: %q", got[0])
	}
}

func TestMarkdownNoWidth(t *testing.T) {
	r := NewRenderer("dark")
	m := NewDoc(r)
	m.Append("text")
	if got := m.Lines(0); got != nil || r.renders != 0 {
		t.Errorf("Lines(0) = %q after %d renders, want nil and none", got, r.renders)
	}
	if got := m.Lines(20); len(got) != 1 {
		t.Errorf("Lines(20) after Lines(0) = %q, want one line", got)
	}
}

func TestNewMarkdownRendererStyle(t *testing.T) {
	for style, want := range map[string]string{"dark": "dark", "light": "light", "notty": "notty", "bogus": "notty"} {
		if got := NewRenderer(style).Style(); got != want {
			t.Errorf("NewRenderer(%q).Style() = %q, want %q", style, got, want)
		}
	}
}

func TestThemesHaveCodeColours(t *testing.T) {
	for _, style := range []string{StyleDark, StyleLight} {
		th, _ := themeFor(style)
		if _, err := newHighlighter(th.chroma); err != nil {
			t.Errorf("%s: %v", style, err)
		}
		r := NewRenderer(style)
		m := NewDoc(r)
		m.Append("```go\nfunc f() {}\n```\n")
		if got := m.Lines(40)[0]; !strings.Contains(got, "\x1b[38;2;") {
			t.Errorf("%s: code is not coloured: %q", style, got)
		}
	}
}

// TestCodeFoldsOnRequest: a code line longer than its block is cut, and
// the doc says so; folded on request, every character of it shows, the
// rows that go on from another marked "↪", in every style; prose and code
// that fits are not counted as cut.
func TestCodeFoldsOnRequest(t *testing.T) {
	long := `fmt.Println("a very long line of Go code that certainly does not fit in forty columns", x, 世界, y)`
	text := "Run this:\n\n```go\n" + long + "\nshort()\n```\n\nand " + strings.Repeat("prose ", 30) + "\n"
	for _, style := range []string{StyleDark, StylePlain} {
		d := NewDoc(NewRenderer(style))
		d.Append(text)
		d.Finish()
		cut := ansi.Strip(strings.Join(d.Lines(40), "\n"))
		if !d.CodeCut() || !strings.Contains(cut, "…") || strings.Contains(cut, "↪") {
			t.Fatalf("%s: cut %v:\n%s", style, d.CodeCut(), cut)
		}
		d.FoldCode(true)
		lines := d.Lines(40)
		var joined strings.Builder
		for _, l := range lines {
			l = ansi.Strip(l)
			if w := ansi.StringWidth(l); w > 40 {
				t.Errorf("%s: a line of %d columns: %q", style, w, l)
			}
			if rest, ok := strings.CutPrefix(l, "   ↪"); ok {
				joined.WriteString(rest)
			} else if rest, ok := strings.CutPrefix(l, "    "); ok && !strings.HasPrefix(rest, " ") {
				joined.WriteString("\n" + rest)
			}
		}
		if !strings.Contains(joined.String(), "\n"+long+"\nshort()") {
			t.Errorf("%s: folded, the code reads\n%s\nwant\n%s", style, joined.String(), long)
		}
		if !d.CodeCut() {
			t.Errorf("%s: folded, the doc no longer says its code is too long", style)
		}
		d.FoldCode(false)
		if got := ansi.Strip(strings.Join(d.Lines(40), "\n")); got != cut {
			t.Errorf("%s: cut again:\n%s\nwant\n%s", style, got, cut)
		}
	}
	d := NewDoc(NewRenderer(StylePlain))
	d.Append("```\nfits()\n```\n\n" + strings.Repeat("prose ", 30))
	if d.Lines(40); d.CodeCut() {
		t.Error("code that fits, and prose, counted as cut")
	}
}
