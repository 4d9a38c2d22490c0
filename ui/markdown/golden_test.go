package markdown

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenWidths are the terminal widths every golden case is rendered at.
var goldenWidths = []int{40, 80, 160}

// goldenStyles are the styles every golden case is rendered in: colour,
// and the plain style of NO_COLOR.
var goldenStyles = []string{StyleDark, StylePlain}

// goldenCases returns the markdown of the golden cases, by name.
func goldenCases(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "golden", "*.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	cases := make(map[string]string, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases[strings.TrimSuffix(filepath.Base(p), ".md")] = string(b)
	}
	return cases
}

// TestGolden renders every case in testdata/golden in every golden style
// and width, streamed in pieces (the lines must equal the whole render
// after every piece), checks every line (checkLines), and compares the
// finished lines with the golden file. Escape characters are written "␛"
// in the golden files, so that they can be read. Run with -update to
// rewrite them.
func TestGolden(t *testing.T) {
	for name, text := range goldenCases(t) {
		for _, style := range goldenStyles {
			for _, width := range goldenWidths {
				golden := fmt.Sprintf("%s_%s_%d", name, style, width)
				t.Run(golden, func(t *testing.T) {
					lines := streamed(t, style, width, text)
					checkLines(t, lines, width)
					got := strings.ReplaceAll(strings.Join(lines, "\n"), "\x1b", "␛") + "\n"
					path := filepath.Join("testdata", "golden", golden+".golden")
					if *update {
						if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatalf("%v (run go test ./ui/markdown -run Golden -update to create it)", err)
					}
					if got != string(want) {
						sameLines(t, path, strings.Split(got, "\n"), strings.Split(string(want), "\n"))
					}
				})
			}
		}
	}
}

// streamed feeds text to a doc in pieces of random sizes, checking after
// every piece that its lines equal the whole render of the text so far,
// and returns the lines of the finished doc.
func streamed(t *testing.T, style string, width int, text string) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(width), uint64(len(text))))
	m := NewDoc(NewRenderer(style))
	for rest := text; rest != ""; {
		n := min(1+rng.IntN(16), len(rest))
		m.Append(rest[:n])
		rest = rest[n:]
		sameLines(t, "after "+m.Text(), m.Lines(width), wholeRender(t, style, width, m.Text()))
	}
	m.Finish()
	lines := m.Lines(width)
	sameLines(t, "finished", lines, wholeRender(t, style, width, text))
	return lines
}

var (
	sgrSeq  = regexp.MustCompile("\x1b\\[([0-9;:]*)m")
	linkSeq = regexp.MustCompile("\x1b\\]8;[^;\x07\x1b]*;([^\x07\x1b]*)(?:\x07|\x1b\\\\)")
)

// checkLines checks what every rendered line must be: at most width cells
// wide, without blanks at its end, without a no-break space (it would be
// copied with the text), without a control character but the escape
// sequences of styles and links, and with every style and link it opens
// closed at its end (a line can be drawn on its own).
func checkLines(t *testing.T, lines []string, width int) {
	t.Helper()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, width, l)
		}
		if strings.TrimRight(l, " ") != l {
			t.Errorf("line %d ends in blanks: %q", i, l)
		}
		if strings.ContainsRune(l, '\u00a0') {
			t.Errorf("line %d has a no-break space: %q", i, l)
		}
		bare := linkSeq.ReplaceAllString(sgrSeq.ReplaceAllString(l, ""), "")
		if strings.ContainsFunc(bare, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
			t.Errorf("line %d has a control character: %q", i, l)
		}
		if sgr := sgrSeq.FindAllStringSubmatch(l, -1); len(sgr) > 0 {
			if last := sgr[len(sgr)-1][1]; last != "" && last != "0" {
				t.Errorf("line %d leaves a style open: %q", i, l)
			}
		}
		if links := linkSeq.FindAllStringSubmatch(l, -1); len(links) > 0 && links[len(links)-1][1] != "" {
			t.Errorf("line %d leaves a link open: %q", i, l)
		}
	}
}
