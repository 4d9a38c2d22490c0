package markdown

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// mdFragments returns markdown pieces that random documents are made of:
// the constructs models write, the ones that make block boundaries tricky
// (blank lines in fences and loose lists, lazy lines, setext underlines,
// definition lists, HTML, interrupted paragraphs) and some broken ones.
func mdFragments() []string {
	return []string{
		"# Heading", "## Sub heading", "Plain paragraph text.", "A paragraph\nover two lines.",
		"- a\n- b", "- a\n\n- b", "- a\n  - nested\n- c", "1. one\n2. two", "3. three\n4. four",
		"1) x\n2) y", "10. ten\n11. eleven", "- [ ] task\n- [x] done", "+ plus item", "* star\n* more",
		"```go\nfunc f() {\n\n}\n```", "```\nplain\n```", "~~~json\n{\"a\": 1}\n~~~", "```bash\n# comment\nls\n",
		"````\n```\ninner\n```\n````", "```\n```", "```\nunclosed at the end",
		"> quote\n> more", "> quote\n\n> another", "> lazy\ncontinuation", "> - quoted list\n> - more",
		"> ```\n> code in quote\n>\n> ```", "| a | b |\n|---|---|\n| 1 | 2 |", "Intro:\n| a |\n|---|\n| 1 |",
		"---", "***", "* * *", "Setext\n======", "Setext2\n---", "<div>\nhtml\n</div>", "<!-- comment -->",
		"<!--\n\nlong comment\n\n-->", "Term\n: definition", ": stray colon", "    indented code\n\n    more code",
		"- item\n\n  continued para", "- item\n\n\tTabbed continuation", "1. step\n   ```sh\n   cmd\n\n   more\n   ```",
		"1. step\n```sh\ncmd\n\nmore\n```", "- x\n   ```\nbad\n\n   ```", "- ```\n  in item\n  ```",
		"Text with `code` and **bold** and [link](https://x.y).", "\tTabbed line", "text\n    ```\nnot fence",
		"Line with trailing spaces  \nhard break", "<https://auto.link>", "2. starts at two",
		"Para\n- list interrupts", "Para\n1. list interrupts", "Para\n```\nfence interrupts\n```",
		"Para\n# heading interrupts", "Para\n> quote interrupts", "Windows\r\nline endings\r\n\r\nhere",
		"日本語の段落です。絵文字 🎉 も。", strings.Repeat("long words wrap across lines ", 12),
		// What the layout does more than wrap prose: cut code, hang list
		// items, size tables, strip heading markup, mark inline spans.
		"```go\nfmt.Println(\"" + strings.Repeat("a long line of code ", 6) + "\")\n\tx := 1\n```",
		"- " + strings.Repeat("a list item that wraps ", 6) + "\n  - " + strings.Repeat("nested and wrapping ", 6),
		"8. eight\n9. nine\n10. " + strings.Repeat("ten wraps ", 10), "- [ ] " + strings.Repeat("task wraps ", 8),
		"| wide | table |\n|:--|--:|\n| " + strings.Repeat("cell text ", 8) + " | `x` |",
		"### Third\n#### Fourth\n###### Sixth", "Inline `code span` at a wrap " + strings.Repeat("`go test ./...` ", 5),
		"**bold** *em* ~~del~~ ***both*** [link](https://go.dev) <https://go.dev> ![img](a.png)", "Vec<T> and <b>tag</b>",
		"> quote\n> " + strings.Repeat("quoted and wrapping ", 6), "| 日本 | 🎉 |\n|---|---|\n| 語 | x |",
	}
}

// randomMarkdown joins random fragments with one to three newlines.
func randomMarkdown(rng *rand.Rand, fragments []string) string {
	var b strings.Builder
	for range 2 + rng.IntN(8) {
		b.WriteString(fragments[rng.IntN(len(fragments))])
		b.WriteString(strings.Repeat("\n", 1+rng.IntN(3)))
	}
	if rng.IntN(3) == 0 {
		return strings.TrimRight(b.String(), "\n")
	}
	return b.String()
}

// TestMarkdownRandomDocuments checks the oracle on random documents, fed
// at once and streamed in random pieces (checked after some pieces), in
// both kinds of style and at two widths, and checks every line.
func TestMarkdownRandomDocuments(t *testing.T) {
	const docs = 80
	rng := rand.New(rand.NewPCG(7, 9))
	fragments := mdFragments()
	renderers := map[string]*Renderer{StyleDark: NewRenderer(StyleDark), StylePlain: NewRenderer(StylePlain)}
	blocks := 0
	for i := range docs {
		doc := randomMarkdown(rng, fragments)
		style, width := StyleDark, 50
		if i%2 == 1 {
			style, width = StylePlain, 24
		}
		r := renderers[style]
		m := NewDoc(r)
		m.Append(doc)
		m.Finish()
		blocks += len(m.blocks)
		sameLines(t, "whole "+doc, m.Lines(width), wholeRender(t, style, width, doc))
		checkLines(t, m.Lines(width), width)

		s := NewDoc(r)
		for rest := doc; rest != ""; {
			n := min(1+rng.IntN(9), len(rest))
			s.Append(rest[:n])
			rest = rest[n:]
			if rng.IntN(4) == 0 {
				sameLines(t, "streamed "+s.Text(), s.Lines(width), wholeRender(t, style, width, s.Text()))
			}
		}
	}
	if blocks < 2*docs {
		t.Errorf("%d blocks in %d documents: the splitter hardly splits", blocks, docs)
	}
}
