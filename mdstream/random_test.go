package mdstream

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
// at once and streamed in random pieces (checked after some pieces).
func TestMarkdownRandomDocuments(t *testing.T) {
	const docs, width = 60, 50
	rng := rand.New(rand.NewPCG(7, 9))
	fragments := mdFragments()
	r := NewRenderer("dark")
	blocks := 0
	for range docs {
		doc := randomMarkdown(rng, fragments)
		m := NewDoc(r)
		m.Append(doc)
		m.Finish()
		blocks += len(m.blocks)
		sameLines(t, "whole "+doc, m.Lines(width), wholeRender(t, "dark", width, doc))

		s := NewDoc(r)
		for rest := doc; rest != ""; {
			n := min(1+rng.IntN(9), len(rest))
			s.Append(rest[:n])
			rest = rest[n:]
			if rng.IntN(4) == 0 {
				sameLines(t, "streamed "+s.Text(), s.Lines(width), wholeRender(t, "dark", width, s.Text()))
			}
		}
	}
	if blocks < 2*docs {
		t.Errorf("%d blocks in %d documents: the splitter hardly splits", blocks, docs)
	}
}
