package ui

import (
	"lathe/ui/markdown/mdgen"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
)

// TestThinkingStreamShowsLastLines streams long reasoning in a few frames
// and checks that each frame shows the last lines of the whole text's
// wrap, though only its end is wrapped.
func TestThinkingStreamShowsLastLines(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"paragraphs", mdgen.Thinking(30_000, "\n\n")},
		{"one paragraph", mdgen.Thinking(30_000, " ")},
		{"blank lines", strings.Repeat(mdgen.Thinking(300, " ")+"\n\n\n\n\n\n", 60)},
		{"one long word", mdgen.Thinking(2_000, " ") + " " + strings.Repeat("0123456789abcdef", 1_000) + " done."},
		{"wide characters", strings.Repeat("推理需要时间，模型在思考下一步应该读哪个文件。", 500)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := testModel(t)
			m.beginRun("why?")
			events(m, orchestrator.TurnStarted{Turn: 1})
			text := tc.text
			for len(text) > 0 {
				n := min(len(text), 9_973) // frames end mid-word
				for n < len(text) && !utf8.RuneStart(text[n]) {
					n--
				}
				sent := tc.text[:len(tc.text)-len(text)+n]
				events(m, orchestrator.ThinkingDelta{Turn: 1, Text: text[:n]})
				text = text[n:]

				body := wrap(strings.TrimSpace(sent), m.transcript.width, indent+"  ", indent+"  ", m.st.thinking)
				want := indent + "✻ Thinking…\n" + ansi.Strip(strings.Join(body[len(body)-thinkingLines:], "\n"))
				if s := screen(m); !strings.Contains(s, want) {
					t.Fatalf("after %d bytes the screen lacks\n%s\nscreen:\n%s", len(sent), want, s)
				}
			}
		})
	}
}

func TestThinkingWithoutWidth(t *testing.T) {
	st := newTheme(true, true)
	it := &thinkingItem{}
	it.add(mdgen.Thinking(5_000, " "))
	if got := it.lines(0, &st); len(got) != 2+thinkingLines {
		t.Errorf("at width 0: %d lines, want %d", len(got), 2+thinkingLines)
	}
}
