package codeindex

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func spans(chunks []Chunk) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, fmt.Sprintf("%d-%d %s", c.Start, c.End, c.Symbol))
	}
	return out
}

func TestSplitGo(t *testing.T) {
	src := `// Package lex reads tokens.
package lex

import (
	"fmt"
	"strings"
)

// Lexer reads tokens.
type Lexer struct {
	src string
}

// Next returns the next token.
func (l *Lexer) Next() string {
	return strings.TrimSpace(l.src)
}

func (Lexer) String() string { return fmt.Sprint("lexer") }

const (
	A = 1
	B = 2
)

var errEOF = fmt.Errorf("eof")

func Map[K comparable, V any](m map[K]V) {}

type Set[T comparable] struct{}

func (s *Set[T]) Add(v T) {}
`
	got := spans(Split("lex/lex.go", []byte(src)))
	want := []string{"9-12 Lexer", "14-17 (*Lexer).Next", "19-19 (Lexer).String", "21-24 A", "26-26 errEOF",
		"28-28 Map", "30-30 Set", "32-32 (*Set).Add"}
	if !slices.Equal(got, want) {
		t.Errorf("chunks\n%q\nwant\n%q", got, want)
	}
	c := Split("lex/lex.go", []byte(src))[1]
	if c.Text != "// Next returns the next token.\nfunc (l *Lexer) Next() string {\n\treturn strings.TrimSpace(l.src)\n}\n" ||
		c.Path != "lex/lex.go" {
		t.Errorf("chunk %+v", c)
	}
}

// TestSplitLongFunction: a declaration longer than a chunk is cut at line
// ends, each piece under the declaration's name.
func TestSplitLongFunction(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nfunc Long() {\n")
	for i := range 100 {
		fmt.Fprintf(&b, "\tx%d := %d\n", i, i)
	}
	b.WriteString("}\n")
	got := spans(Split("p.go", []byte(b.String())))
	want := []string{"3-62 Long", "63-104 Long"}
	if !slices.Equal(got, want) {
		t.Errorf("chunks %q, want %q", got, want)
	}
}

func TestSplitBlocks(t *testing.T) {
	src := "# Title\n\nintro line\n\n" + strings.Repeat("a\n", 9) + "\nshort\n\n\n" + strings.Repeat("b\n", 3)
	got := spans(Split("README.md", []byte(src)))
	// The title and the intro are joined to the block of nine lines that
	// follows; "short" and the three b lines make the last one.
	want := []string{"1-13 ", "15-20 "}
	if !slices.Equal(got, want) {
		t.Errorf("chunks %q, want %q", got, want)
	}
	// Go that does not parse is cut as text.
	if got := spans(Split("broken.go", []byte("package p\n\nfunc {\n"))); !slices.Equal(got, []string{"1-3 "}) {
		t.Errorf("broken Go: %q", got)
	}
	if got := Split("empty.txt", nil); len(got) != 0 {
		t.Errorf("an empty file: %q", spans(got))
	}
}

func TestSplitBounds(t *testing.T) {
	// A minified line is cut; a file of many blocks has at most
	// maxFileChunks chunks.
	long := strings.Repeat("x", 10000)
	chunks := Split("min.js", []byte(long))
	if len(chunks) != 1 || len(chunks[0].Text) > maxChunkBytes+1 {
		t.Errorf("a 10,000-byte line: %d chunks, %d bytes", len(chunks), len(chunks[0].Text))
	}
	many := strings.Repeat(strings.Repeat("line\n", 8)+"\n", 1000)
	if n := len(Split("many.txt", []byte(many))); n != maxFileChunks {
		t.Errorf("%d chunks, want %d", n, maxFileChunks)
	}
}

func TestWords(t *testing.T) {
	got := Words(Chunk{Path: "internal/http_server.go", Symbol: "(*Server).parseHTTPRequest", Text: "x := maxChunkLines"})
	want := "internal http_server http server go Server parseHTTPRequest parse HTTP Request x maxChunkLines max Chunk Lines"
	if got != want {
		t.Errorf("words\n%q\nwant\n%q", got, want)
	}
	if got := strings.Join(queryWords("where is parseConfig? config"), " "); got != "where is parseconfig parse config" {
		t.Errorf("query words %q", got)
	}
}
