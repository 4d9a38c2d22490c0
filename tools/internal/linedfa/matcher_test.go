package linedfa

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// reference returns the lines of text that re matches, as Scan defines
// them, by running re on each line.
func reference(re *regexp.Regexp, text []byte) [][2]int {
	var out [][2]int
	for ls := 0; ls < len(text); {
		le := bytes.IndexByte(text[ls:], '\n')
		next := ls + le + 1
		if le < 0 {
			le, next = len(text)-ls, len(text)
		}
		end := ls + le
		if end > ls && text[end-1] == '\r' {
			end--
		}
		if re.Match(text[ls:end]) {
			out = append(out, [2]int{ls, end})
		}
		ls = next
	}
	return out
}

func scanLines(m *Matcher, text []byte) [][2]int {
	var got [][2]int
	m.Scan(text, func(s, e int) { got = append(got, [2]int{s, e}) })
	return got
}

var patterns = []string{
	"", "a", "foo", "foo|bar", "^foo", "foo$", "^$", "^", "$", `\bfoo\b`, `\Bo\B`, `\b`, `\B`,
	"[A-Z]{4}\\(", "[A-Z][a-z]{2,}[0-9]{3}", `func \(s \*Server\) handle\w+Token`, "(?i)todo", "(?i)key", "(?i)s",
	"a.c", "(?s)a.c", `a\nb`, "[^x]", "[^x]$", "x*", "(a|b)*abb", `\x{FFFD}`, ".", "^.$", "^..$", "é", "(?i)É",
	`\pL+`, `\p{Greek}`, `[\p{Han}]`, `(?i)straße`, "\\Afoo", "foo\\z", "(?m)^foo$", `\r`, `a\r`, "^\\s*$",
	`(foo)?bar`, `[[:upper:]]+`, `\d{3}-\d{4}`, `(?U)a+`, "a{2}b", `(?i)[k-m]`, `\w+@\w+\.\w+`, "^(a|ab)(c|bcd)(d*)$",
	`\b\w`, `\w\b`, `^\b`, `\b$`, `(^|x)y`, `y(x|$)`, "[^\n]", `(?i)Σ`, `[^\x00-\x7f]`, "ü$",
	`(?i)fixme|xxx|hack`, `[qzjQ]+[ZJ]`, "(?i)bo|ka", `[a-z]+[0-9]+\(`,
}

var corpus = []string{
	"", "\n", "\n\n", "foo", "foo\n", "a foo b\nbar\n\nFOO\n", "Kelvin \u212aey and \u017fite\nkey site\n",
	"line one\r\nline two\r\n", "x\r", "x\r\r\n", "a\rb\n\r\n", "foo\nbar\nfoo bar\n", "x\x00y\nfoofoo", "naïve café\nNAÏVE\n",
	"abc\ndef\nabcdef\na\nb\nabb\naabb\n", "func (s *Server) handleUserToken(ctx)\n", "ABCD( x\nABC(\nxABCDE(y\n",
	"Hello123 Abc1234 ab123\n", "\xff\xfe\n\xc3\n\xe2\x82\n\xe2\x82\xac\nab\xffc\n", "\xef\xbf\xbd\n", "Straße STRASSE\n",
	"αβγ ΣΑΣ σας\n漢字\n", " \t \n", "TODO todo ToDo\n", "a@b.c x@y\n", "abcd\nabbcd\n", "über\nuber\nü\n", "ac\nabc\na\nc",
}

func TestScanAgreesWithRegexp(t *testing.T) {
	for _, p := range patterns {
		prog, err := Compile(p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		re := regexp.MustCompile(p)
		m := prog.NewMatcher(re.Match)
		for _, text := range corpus {
			got, want := scanLines(m, []byte(text)), reference(re, []byte(text))
			if !slices.Equal(got, want) {
				t.Errorf("pattern %q on %q: lines %v, want %v", p, text, got, want)
			}
		}
	}
}

// TestScanRandom runs the patterns on random texts drawn from bytes that
// matter to them: letters of both cases, digits, '\n', '\r', non-ASCII
// and invalid UTF-8.
func TestScanRandom(t *testing.T) {
	alphabet := []string{"a", "b", "c", "A", "B", "k", "K", "s", "x", "f", "o", "O", "1", "2", "(", " ", "_", "\n", "\n", "\r", "\r\n", "é", "\u212a", "\u017f", "\xff", "\xe2\x82", "ß", "Σ", "σ"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		prog, _ := Compile(p)
		m := prog.NewMatcher(re.Match)
		for range 200 {
			var b strings.Builder
			for range rng.IntN(40) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			text := []byte(b.String())
			if got, want := scanLines(m, text), reference(re, text); !slices.Equal(got, want) {
				t.Fatalf("pattern %q on %q: lines %v, want %v", p, text, got, want)
			}
		}
	}
}

// TestScanSmallCache checks that a pattern needing more states than the
// cache holds still gives the right lines, through clearing the cache and,
// for a line that fills it twice, the slow matcher.
func TestScanSmallCache(t *testing.T) {
	const p = "(a|b)*a(a|b){8}c"
	re := regexp.MustCompile(p)
	prog, _ := Compile(p)
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for range 300 {
		for range rng.IntN(60) {
			b.WriteByte("abc"[rng.IntN(3)])
		}
		b.WriteByte('\n')
	}
	text := []byte(b.String())
	want := reference(re, text)
	if len(want) == 0 {
		t.Fatal("no line matches: the test tests nothing")
	}
	for _, limit := range []int{maxTable, 64 * 8, 16 * 8} {
		slowCalls := 0
		m := prog.NewMatcher(func(line []byte) bool { slowCalls++; return re.Match(line) })
		m.limit = limit * m.stride / 8
		if got := scanLines(m, text); !slices.Equal(got, want) {
			t.Errorf("limit %d: lines %v, want %v", limit, got, want)
		}
		if limit == maxTable && slowCalls > 0 {
			t.Errorf("limit %d: %d slow calls with room enough", limit, slowCalls)
		}
		if limit == 16*8 && slowCalls == 0 {
			t.Errorf("limit %d: the slow matcher was never used", limit)
		}
	}
}

func FuzzScan(f *testing.F) {
	for i, p := range patterns {
		f.Add(p, corpus[i%len(corpus)])
	}
	f.Fuzz(func(t *testing.T, p, text string) {
		re, err := regexp.Compile(p)
		if err != nil {
			return
		}
		prog, err := Compile(p)
		if err != nil {
			t.Fatalf("regexp compiles %q, Compile does not: %v", p, err)
		}
		m := prog.NewMatcher(re.Match)
		if got, want := scanLines(m, []byte(text)), reference(re, []byte(text)); !slices.Equal(got, want) {
			t.Fatalf("pattern %q on %q: lines %v, want %v", p, text, got, want)
		}
	})
}

// TestSkipperModes checks which patterns get which skipper: one that
// tests words for up to three ranges, a table for more, none when the
// bytes that leave the start state are common or the start state depends
// on what came before.
func TestSkipperModes(t *testing.T) {
	tests := []struct {
		pattern string
		want    string
	}{
		{`[A-Z]{4}\(`, "words"},
		{`(?i)todo`, "words"},
		{`(?i)fixme|xxx|hack`, "table"},
		{`[qzjQ]+[ZJ]`, "table"},
		{`[a-z]+[0-9]+\(`, "none"},
		{`\bfoo`, "none"},
		{`^foo`, "none"},
		{`x*`, "none"},
	}
	for _, tt := range tests {
		p, err := Compile(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		got := "none"
		if p.skip != nil {
			got = "table"
			if p.skip.words {
				got = "words"
			}
		}
		if got != tt.want {
			t.Errorf("%q: skipper %s, want %s", tt.pattern, got, tt.want)
		}
	}
}
