package markdown

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// These tests check the layout rules the golden files show, each on its
// own, so that a failure names the rule: code stays in its block, list
// items hang, tables take the width they need, inline code is not padded,
// headings show no markup, and the plain style marks every inline span.

// render returns the lines of text rendered whole, without escape
// sequences, and checks every line (checkLines).
func render(t *testing.T, style string, width int, text string) []string {
	t.Helper()
	m := NewDoc(NewRenderer(style))
	m.Append(text)
	m.Finish()
	lines := m.Lines(width)
	checkLines(t, lines, width)
	bare := make([]string, len(lines))
	for i, l := range lines {
		bare[i] = ansi.Strip(l)
	}
	return bare
}

func TestCodeStaysInItsBlock(t *testing.T) {
	code := []string{
		"func main() {",
		"    fmt.Println(\"a very long line of Go code that certainly does not fit in eighty columns of terminal width at all\")",
		"\treturn // a tab, drawn as four columns",
		"}",
	}
	text := "Text\n\n```go\n" + strings.Join(code, "\n") + "\n```\n"
	for _, style := range goldenStyles {
		for _, width := range goldenWidths {
			lines := render(t, style, width, text)
			if len(lines) != 2+len(code) {
				t.Fatalf("%s at %d: %d lines, want the paragraph, a blank line and %d lines of code: %q", style, width, len(lines), len(code), lines)
			}
			for i, want := range code {
				want = strings.ReplaceAll(want, "\t", "    ")
				got, ok := strings.CutPrefix(lines[2+i], "    ")
				if !ok {
					t.Errorf("%s at %d: code line %d is not indented like its block: %q", style, width, i, lines[2+i])
					continue
				}
				// What is shown is the line, or its start and "…" where it
				// reaches the edge: copying gives the code as written.
				if cut, ok := strings.CutSuffix(got, "…"); ok && got != want {
					if !strings.HasPrefix(want, cut) || ansi.StringWidth(lines[2+i]) != width-2 {
						t.Errorf("%s at %d: code line %d is %q, want the start of %q cut at the block's edge", style, width, i, got, want)
					}
				} else if got != want {
					t.Errorf("%s at %d: code line %d is %q, want %q", style, width, i, got, want)
				}
			}
		}
	}
}

func TestListItemsHang(t *testing.T) {
	text := "1. `main.go` parses the flags and wires everything together, which is a long sentence that must wrap around.\n" +
		"2. `orchestrator/` runs the turn loop: it sends the request, reads the stream, and runs tools.\n" +
		"   - nested item one, which is fairly long so that it has to wrap on a narrow terminal window\n" +
		"   - nested two\n"
	// The first items' text starts at column 5 (a margin of 2, "1. "),
	// the nested items' bullets at 5 and their text at 7: every line is an
	// item's first line or a continuation at its text's column.
	item := regexp.MustCompile(`^  [12]\. \S`)
	itemMore := regexp.MustCompile(`^ {5}[^ •]`)
	nested := regexp.MustCompile(`^ {5}• \S`)
	nestedMore := regexp.MustCompile(`^ {7}\S`)
	for _, style := range goldenStyles {
		for _, width := range []int{40, 80} {
			lines := render(t, style, width, text)
			inNested, wrapped := false, 0
			for i, l := range lines {
				switch {
				case item.MatchString(l):
					inNested = false
				case nested.MatchString(l):
					inNested = true
				case inNested && nestedMore.MatchString(l), !inNested && itemMore.MatchString(l):
					wrapped++
				default:
					t.Errorf("%s at %d: line %d is neither an item nor at its item's text: %q", style, width, i, l)
				}
			}
			if wrapped < 3 {
				t.Errorf("%s at %d: %d wrapped lines, want at least 3 (the test needs items that wrap): %q", style, width, wrapped, lines)
			}
		}
	}
}

func TestTablesTakeTheWidthTheyNeed(t *testing.T) {
	text := "| file | lines | purpose |\n|------|------:|---------|\n" +
		"| main.go | 120 | entry point |\n| tui/model.go | 800 | the root model of the terminal user interface |\n"
	// As wide as the content: a space, "tui/model.go", " | ", "lines",
	// " | ", "the root model...": 2 + 1 + 12 + 3 + 5 + 3 + 45 columns.
	const natural = 71
	for _, style := range goldenStyles {
		for _, width := range goldenWidths {
			lines := render(t, style, width, text)
			w := 0
			for _, l := range lines {
				w = max(w, ansi.StringWidth(l))
			}
			switch {
			case width >= natural && w != natural:
				t.Errorf("%s at %d: the table is %d columns wide, want %d (its content): %q", style, width, w, natural, lines)
			case width < natural && w > width:
				t.Errorf("%s at %d: the table is %d columns wide: %q", style, width, w, lines)
			}
			// Every row puts its column lines at the same places.
			bar := []rune(lines[0])
			for _, l := range lines[2:] {
				for i, r := range []rune(l) {
					if (r == '│' || r == '|') != (i < len(bar) && (bar[i] == '│' || bar[i] == '|')) {
						t.Errorf("%s at %d: the columns do not line up:\n%s", style, width, strings.Join(lines, "\n"))
						break
					}
				}
			}
		}
	}
}

func TestInlineCodeIsNotPadded(t *testing.T) {
	text := "Created `test.txt` containing `Hello World`. This is paragraph 3 of a long streamed answer. It talks about **bold** things, `code` things and lists."
	for _, style := range goldenStyles {
		for _, width := range goldenWidths {
			lines := render(t, style, width, text)
			var prose []string
			for _, l := range lines {
				prose = append(prose, strings.TrimSpace(l))
			}
			for _, bad := range []string{"\u00a0", "  "} {
				if strings.Contains(strings.Join(prose, " "), bad) {
					t.Errorf("%s at %d: %q in the text: %q", style, width, bad, lines)
				}
			}
			for i, l := range lines {
				if strings.HasPrefix(l, "   ") {
					t.Errorf("%s at %d: line %d starts with a stray space: %q", style, width, i, l)
				}
			}
		}
	}
	// In colour, the code is marked by its style alone.
	m := NewDoc(NewRenderer(StyleDark))
	m.Append("Run `go test ./...` now.")
	if got, want := m.Lines(80)[0], "\x1b[38;5;203;48;5;236mgo test ./...\x1b[m"; !strings.Contains(got, want) {
		t.Errorf("inline code is %q, want it styled as %q", got, want)
	}
}

func TestHeadingsShowNoMarkup(t *testing.T) {
	for _, style := range goldenStyles {
		for level := 1; level <= 6; level++ {
			text := strings.Repeat("#", level) + " Heading\n\nText"
			lines := render(t, style, 80, text)
			if h := strings.TrimRight(lines[0], " "); h != "  Heading" && h != "   Heading" { // level 1 is a banner in colour
				t.Errorf("%s: level %d heading is %q, want its text alone", style, level, lines[0])
			}
			under := ""
			if style == StylePlain {
				under = "  -------"
				if level == 1 {
					under = "  ======="
				}
				if lines[1] != under {
					t.Errorf("%s: level %d heading is underlined %q, want %q", style, level, lines[1], under)
				}
			}
		}
	}
}

func TestPlainStyleMarksEverySpan(t *testing.T) {
	text := "**bold**, *italic*, ~~struck~~, `code` and [a link](https://go.dev)."
	if got, want := render(t, StylePlain, 80, text)[0], "  "+text; got != want {
		t.Errorf("plain: %q, want every span in its markers: %q", got, want)
	}
	m := NewDoc(NewRenderer(StyleDark))
	m.Append(text)
	got := m.Lines(80)[0]
	if bare := ansi.Strip(got); bare != "  bold, italic, struck, code and a link https://go.dev." {
		t.Errorf("dark: %q shows markers", bare)
	}
	for _, sgr := range []string{"\x1b[1;", "\x1b[3;", "\x1b[9;", "48;5;236m"} {
		if !strings.Contains(got, sgr) {
			t.Errorf("dark: %q has no %q", got, sgr)
		}
	}
}

func TestLinesFitTinyWidths(t *testing.T) {
	texts := []string{}
	for _, text := range goldenCases(t) {
		texts = append(texts, text)
	}
	for _, text := range mdCorpus(t) {
		texts = append(texts, text)
	}
	for _, style := range []string{StyleDark, StyleLight, StylePlain} {
		r := NewRenderer(style)
		for width := 1; width <= 12; width++ {
			for _, text := range texts {
				m := NewDoc(r)
				m.Append(text)
				m.Finish()
				checkLines(t, m.Lines(width), width)
			}
		}
	}
}
