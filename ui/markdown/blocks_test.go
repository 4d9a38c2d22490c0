package markdown

import (
	"slices"
	"testing"
)

// splitBlocks feeds text to a splitter in pieces of n bytes (all at once if
// n is 0) and returns the finished blocks and the tail.
func splitBlocks(text string, n int) (blocks []string, tail string) {
	s := mdSplitter{kinds: NewRenderer("notty").topLevelBlocks}
	start, fed := 0, 0
	for fed < len(text) {
		step := len(text) - fed
		if n > 0 {
			step = min(n, step)
		}
		fed += step
		for _, end := range s.scan(text[:fed]) {
			blocks = append(blocks, text[start:end])
			start = end
		}
	}
	return blocks, text[start:]
}

func TestSplitterBlocks(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		blocks []string
		tail   string
	}{
		{
			"paragraphs end at blank lines",
			"# H\n\npara one\nstill one\n\n- a\n- b\n\nend\n",
			[]string{"# H\n\n", "para one\nstill one\n\n", "- a\n- b\n\n"}, "end\n",
		},
		{
			"the next line's first letter finishes a block",
			"para\n\nn", []string{"para\n\n"}, "n",
		},
		{"a colon may make a definition", "para\n\n: de", nil, "para\n\n: de"},
		{"a digit may continue a list", "- a\n\n1", nil, "- a\n\n1"},
		{"indentation may continue a list", "- a\n\n  b", nil, "- a\n\n  b"},
		{"a letter ends a list", "- a\n\nT", []string{"- a\n\n"}, "T"},
		{"a closed fence ends at the next letter", "```\nx\n```\nT", []string{"```\nx\n```\n"}, "T"},
		{
			"blank lines inside a fence",
			"```go\na\n\nb\n```\nafter\n",
			[]string{"```go\na\n\nb\n```\n"}, "after\n",
		},
		{
			"tilde fence closed only by tildes",
			"~~~\n```\n\ntext\n~~~\n\nnext\n",
			[]string{"~~~\n```\n\ntext\n~~~\n\n"}, "next\n",
		},
		{
			"loose list goes on past blank lines",
			"- a\n\n- b\n\n  c\n\nd\n",
			[]string{"- a\n\n- b\n\n  c\n\n"}, "d\n",
		},
		{
			"fence inside a list item",
			"1. x\n   ```\n   a\n\n   b\n   ```\n2. y\n\nz\n",
			[]string{"1. x\n   ```\n   a\n\n   b\n   ```\n2. y\n\n"}, "z\n",
		},
		{
			"unclosed fence stays open",
			"para\n\n```\ncode\n\nmore\n",
			[]string{"para\n\n"}, "```\ncode\n\nmore\n",
		},
		{
			"blocks that interrupt a paragraph",
			"text\n# H\nmore\n```\nx\n```\nlast\n",
			[]string{"text\n", "# H\n", "more\n", "```\nx\n```\n"}, "last\n",
		},
		{
			"setext underline is not a rule",
			"Title\n---\ntext\n", nil, "Title\n---\ntext\n",
		},
		{
			"definition list merges across a blank line",
			"Term\n\n: def\n\nnext\n\nlast\n",
			[]string{"Term\n\n: def\n\nnext\n\n"}, "last\n",
		},
		{
			"HTML blocks are blocks like the others",
			"a\n\n<div>\nx\n</div>\n\nb\n\nc\n",
			[]string{"a\n\n", "<div>\nx\n</div>\n\n", "b\n\n"}, "c\n",
		},
		{
			"blank lines inside an HTML comment",
			"a\n\n<!--\n\nnot a paragraph\n\n-->\n\nb\n\nc\n",
			[]string{"a\n\n", "<!--\n\nnot a paragraph\n\n-->\n\n", "b\n\n"}, "c\n",
		},
		{
			"indented code goes on past blank lines",
			"    a\n\n    b\n\nc\n",
			[]string{"    a\n\n    b\n\n"}, "c\n",
		},
		{
			"dedented fence ends the list item",
			"1. a\n```\nx\n\ny\n```\n\nend\n",
			[]string{"1. a\n", "```\nx\n\ny\n```\n\n"}, "end\n",
		},
		{
			// The second ``` opens a fence at the top level ("code" ended
			// the list item); the heuristics take it for the closing one
			// and propose "end", which the parser refuses.
			"a wrong guess is refused by the parser",
			"1. a\n   ```\ncode\n\n   still\n   ```\n\nend\n",
			nil, "1. a\n   ```\ncode\n\n   still\n   ```\n\nend\n",
		},
		{
			"a link reference definition stops splitting",
			"See [x].\n\n## More\n\n[x]: https://example.com\n\nlast\n",
			[]string{"See [x].\n\n"}, "## More\n\n[x]: https://example.com\n\nlast\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 3} {
				blocks, tail := splitBlocks(tt.text, n)
				if !slices.Equal(blocks, tt.blocks) || tail != tt.tail {
					t.Fatalf("pieces of %d: blocks %q, tail %q; want %q, %q", n, blocks, tail, tt.blocks, tt.tail)
				}
			}
		})
	}
}

func TestLineClassifiers(t *testing.T) {
	tests := []struct {
		rest                          string
		atx, brk, item, fence, refdef bool
	}{
		{rest: "# H", atx: true},
		{rest: "###### H", atx: true},
		{rest: "####### H"},
		{rest: "#hashtag"},
		{rest: "---", brk: true},
		{rest: "* * *", brk: true, item: true},
		{rest: "- item", item: true},
		{rest: "-item"},
		{rest: "12. item", item: true},
		{rest: "3) item", item: true},
		{rest: "1234567890. too long"},
		{rest: "```go", fence: true},
		{rest: "~~~ `ok`", fence: true},
		{rest: "```a`b"},
		{rest: "``"},
		{rest: "[x]: https://a", refdef: true},
		{rest: "> [x]: https://a", refdef: true},
		{rest: "- [x] done", item: true},
		{rest: "[x] done"},
	}
	for _, tt := range tests {
		got := [5]bool{mdATX(tt.rest), mdBreak(tt.rest), mdListItem(tt.rest), mdFenceOpens(tt.rest), mdRefDef(tt.rest)}
		want := [5]bool{tt.atx, tt.brk, tt.item, tt.fence, tt.refdef}
		if got != want {
			t.Errorf("%q: atx, break, item, fence, refdef = %v, want %v", tt.rest, got, want)
		}
	}
}
