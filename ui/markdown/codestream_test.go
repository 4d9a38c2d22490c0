package markdown

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// openCodeSamples are code blocks in languages whose lexers keep state
// over lines: strings and comments that run over lines, JSON's nested
// objects (keys are coloured unlike values: these are never lexed from a
// kept line), YAML blocks.
var openCodeSamples = map[string]string{
	"go": "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n// Greet says hello.\n" +
		"func Greet(name string) string {\n\ts := `raw\nstring over\n\nlines`\n\tif name == \"\" {\n" +
		"\t\treturn \"nobody\" // none\n\t}\n\treturn fmt.Sprintf(\"hi %s\", strings.ToUpper(name)) + s\n}\n\n" +
		"func main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(Greet(\"x\"), i)\n\t}\n}\n",
	"python": "import os\n\n\nclass Reader:\n    \"\"\"Reads things.\n\n    More about it, over lines:\n" +
		"    def not_code(): pass\n    \"\"\"\n\n    def read(self, path):\n        # a comment\n" +
		"        with open(path) as f:\n            return f.read()  # done\n\n\ndef main():\n" +
		"    r = Reader()\n    print(r.read(os.path.join('a', \"b\")), 42, 3.5)\n",
	"json": "{\n  \"name\": \"lathe\",\n  \"nested\": {\n    \"list\": [1, 2, {\"deep\": true}],\n" +
		"    \"text\": \"a \\\"quoted\\\" word\",\n    \"more\": {\n      \"a\": null,\n      \"b\": -1.5e3\n" +
		"    }\n  },\n  \"last\": [\n    \"x\",\n    \"y\"\n  ]\n}\n",
	"bash": "#!/usr/bin/env bash\nset -euo pipefail\n\necho 'single\nquoted' \"double\n$HOME\"\n\nfor f in *.go; do\n  echo \"file: $f\" # note\n  x=$((1 + 2))\ndone\n" +
		"if [ -n \"${HOME:-}\" ]; then\n  ls -la \"$HOME\"\nfi\n",
	"yaml": "name: build\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n" +
		"    steps:\n      - uses: actions/checkout@v4\n      - run: |\n          go test ./...\n" +
		"          go vet ./...\n      - name: \"quoted: value\"\n        env:\n          A: 1 # comment\n",
	"rust": "use std::io;\n\n/// Docs.\nfn main() -> io::Result<()> {\n    let s = \"over\nlines\";\n" +
		"    let r = r#\"raw \"quoted\"\n    still\"#;\n    for c in s.chars() {\n        println!(\"{c}\");\n" +
		"    }\n    Ok(())\n}\n",
	"": "plain text\n  without a language\n\n<b>not html</b> \"nor a string\n" +
		"more\nlines\nof it\n\tand a tab\nand the end\n",
}

// TestOpenCodeHighlightsAsWhole streams code blocks in pieces of several
// sizes and checks every render against the render of the whole text so
// far, and the finished message against the whole: an open block lexed
// again only from its last lines must colour every line as the whole lex.
// It also checks that the kept lines were used, so that lexing every
// block whole cannot pass it.
func TestOpenCodeHighlightsAsWhole(t *testing.T) {
	const width = 80
	for lang, code := range openCodeSamples {
		text := "Some code:\n\n```" + lang + "\n" + code + "```\n\nAfter it.\n"
		resumed := 0
		for _, pieces := range []string{"1", "3", "7", "lines", "random"} {
			t.Run(fmt.Sprintf("%s/%s", cmpOr(lang, "plain"), pieces), func(t *testing.T) {
				r := NewRenderer(StyleDark)
				m := NewDoc(r)
				rng := rand.New(rand.NewPCG(uint64(len(code)), 3))
				for rest := text; rest != ""; {
					n := pieceLen(pieces, rest, rng)
					m.Append(rest[:n])
					rest = rest[n:]
					sameLines(t, "after "+m.Text(), m.Lines(width), wholeRender(t, StyleDark, width, m.Text()))
				}
				m.Finish()
				sameLines(t, "finished", m.Lines(width), wholeRender(t, StyleDark, width, text))
				resumed += r.code.open.resumed
			})
		}
		if resumed == 0 && lang != "json" {
			t.Errorf("%s: the open block was lexed whole at every render", cmpOr(lang, "plain"))
		}
	}
}

// cmpOr is s, or or if s is empty.
func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// pieceLen is the length of the next piece of rest to stream: a fixed
// size, a line, or a random size up to 16 bytes.
func pieceLen(pieces, rest string, rng *rand.Rand) int {
	switch pieces {
	case "lines":
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			return i + 1
		}
		return len(rest)
	case "random":
		return min(1+rng.IntN(16), len(rest))
	}
	var n int
	fmt.Sscan(pieces, &n)
	return min(n, len(rest))
}

// TestOpenCodeFinishedLexedWhole checks that what highlighting from kept
// lines gives up comes back once the message is finished: a construct
// whose end has not come yet (a C comment, a heredoc) is lexed otherwise,
// and lines before the restart keep that colour when its end comes, until
// the block is lexed whole.
func TestOpenCodeFinishedLexedWhole(t *testing.T) {
	const width = 80
	for name, text := range map[string]string{
		"c": "```c\nint main() {\n    int a = 1;\n    /* a comment\n    over lines\n    int b = 2;\n" +
			"    more\n    and more\n    still\n    */\n    return a;\n}\n",
		"heredoc": "```bash\nset -e\ncat <<EOF >out.txt\nnot $code but text\n  indented | too\n" +
			"more\nlines\nEOF\nls\n",
	} {
		for _, closed := range []bool{false, true} {
			if closed {
				text += "```\n\nAfter it.\n"
			}
			r := NewRenderer(StyleDark)
			m := NewDoc(r)
			for rest := text; rest != ""; {
				n := strings.IndexByte(rest, '\n') + 1
				m.Append(rest[:n])
				rest = rest[n:]
				m.Lines(width)
			}
			m.Finish()
			sameLines(t, name+" finished", m.Lines(width), wholeRender(t, StyleDark, width, text))
			if r.code.open.resumed == 0 {
				t.Errorf("%s: the open block was lexed whole at every render", name)
			}
		}
	}
}

// BenchmarkOpenCode measures streaming a long code block, a frame every
// 20 tokens of about 4 bytes (200 tokens a second at 10 frames a second):
// the cost of a frame grows with the block unless kept lines are used.
func BenchmarkOpenCode(b *testing.B) {
	var code strings.Builder
	for i := range 12 {
		code.WriteString(openCodeSamples["go"][strings.Index(openCodeSamples["go"], "// Greet"):])
		fmt.Fprintf(&code, "// part %d\n", i)
	}
	text := "```go\n" + code.String() + "```\n"
	r := NewRenderer(StyleDark)
	warm := NewDoc(r)
	warm.Append(text)
	warm.Lines(benchWidth)
	tokens := 0
	for range b.N {
		m := NewDoc(r)
		for i := 0; i < len(text); i += 4 {
			m.Append(text[i:min(i+4, len(text))])
			if tokens++; tokens%20 == 0 {
				m.Lines(benchWidth)
			}
		}
		m.Lines(benchWidth)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(tokens), "ns/token")
}
