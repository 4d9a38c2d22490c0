package tools

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	long := strings.Repeat("a", 1000) + "NEEDLE" + strings.Repeat("b", 1000)
	ws := newWorkspace(t, map[string]string{
		"main.go":        "package main\n\nfunc main() {\n\tprintln(\"Hello\")\n}\n",
		"src/util.go":    "package src\n// hello there\nfunc Hello() {}\n",
		"src/web/app.ts": "export function hello() {}\n",
		"notes.txt":      "HELLO\r\nbye\r\n",
		"img.png":        "\x89PNG\x00hello",
		"min.js":         long + "\n",
		"ignored.log":    "hello\n",
		".gitignore":     "*.log\n",
		"link.go":        "->main.go",
	})
	tests := []struct {
		name, args, want string
		isErr            bool
	}{
		{name: "regexp", args: `{"pattern":"func \\w+\\("}`, want: "main.go:3: func main() {\nsrc/util.go:3: func Hello() {}\n"},
		{name: "case", args: `{"pattern":"hello"}`, want: "src/util.go:2: // hello there\nsrc/web/app.ts:1: export function hello() {}\n"},
		{name: "ignore case", args: `{"pattern":"hello","ignore_case":true}`,
			want: "main.go:4: \tprintln(\"Hello\")\nnotes.txt:1: HELLO\nsrc/util.go:2: // hello there\nsrc/util.go:3: func Hello() {}\nsrc/web/app.ts:1: export function hello() {}\n"},
		{name: "include name", args: `{"pattern":"hello","include":"*.ts","ignore_case":true}`, want: "src/web/app.ts:1: export function hello() {}\n"},
		{name: "include path", args: `{"pattern":"hello","include":"src/**/*.go","ignore_case":true}`, want: "src/util.go:2: // hello there\nsrc/util.go:3: func Hello() {}\n"},
		{name: "include relative to path", args: `{"pattern":"hello","path":"src","include":"web/*.ts"}`, want: "src/web/app.ts:1: export function hello() {}\n"},
		{name: "include braces", args: `{"pattern":"^package","include":"*.{go,ts}"}`, want: "main.go:1: package main\nsrc/util.go:1: package src\n"},
		{name: "path", args: `{"pattern":"Hello","path":"src"}`, want: "src/util.go:3: func Hello() {}\n"},
		{name: "single file", args: `{"pattern":"^\\}$","path":"main.go"}`, want: "main.go:5: }\n"},
		{name: "ignored file by name", args: `{"pattern":"hello","path":"ignored.log"}`, want: "ignored.log:1: hello\n"},
		{name: "binary file by name", args: `{"pattern":"hello","path":"img.png"}`, want: "error: img.png is not a text file grep can search", isErr: true},
		{name: "anchors per line", args: `{"pattern":"^bye$"}`, want: "notes.txt:2: bye\n"},
		{name: "long line cut", args: `{"pattern":"NEEDLE"}`, want: "min.js:1: …" + strings.Repeat("a", 60) + "NEEDLE" + strings.Repeat("b", 174) + "…\n"},
		{name: "no match", args: `{"pattern":"zzz"}`, want: `no matches for "zzz" (binary and .gitignored files are skipped)`},
		{name: "no match in path", args: `{"pattern":"zzz","path":"src"}`, want: `no matches for "zzz" in src (`},
		{name: "invalid regexp", args: `{"pattern":"func("}`, want: "invalid regexp \"func(\": error parsing regexp: missing closing ): `func(`", isErr: true},
		{name: "invalid include", args: `{"pattern":"x","include":"[a"}`, want: `include "[a" is not a valid glob`, isErr: true},
		{name: "empty pattern", args: `{"pattern":""}`, want: "pattern is empty", isErr: true},
		{name: "missing path", args: `{"pattern":"x","path":"nope"}`, want: "nope does not exist", isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, ws, Options{}, "grep", tt.args)
			if res.IsError != tt.isErr || !strings.HasPrefix(res.Content, tt.want) && !tt.isErr || !strings.Contains(res.Content, tt.want) {
				t.Fatalf("got %+v\nwant IsError=%v, content\n%s", res, tt.isErr, tt.want)
			}
		})
	}
}

func TestGrepSummary(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "x\nx\n", "b/c.txt": "x\n"})
	res := run(t, ws, Options{}, "grep", `{"pattern":"x"}`)
	if res.Content != "a.txt:1: x\na.txt:2: x\nb/c.txt:1: x\n" || res.Summary != "3 matches in 2 files" {
		t.Fatalf("%+v", res)
	}
}

func TestGrepRespectsIgnore(t *testing.T) {
	ws := newWorkspace(t, ignoreTree())
	res := run(t, ws, Options{}, "grep", `{"pattern":"needle"}`)
	var files []string
	for line := range strings.Lines(res.Content) {
		files = append(files, strings.SplitN(line, ":", 2)[0])
	}
	want := []string{".gitignore", "a.go", "b.tmp", "b.ts", "docs/readme.md", "keep.log", "src/.gitignore", "src/build", "src/deep/.gitignore", "src/deep/c.tmp", "src/deep/y.go", "src/rootonly.txt", "src/x.go"}
	// .gitignore files hold no needle: drop them from want.
	want = slices.DeleteFunc(want, func(s string) bool { return strings.HasSuffix(s, ".gitignore") })
	if !slices.Equal(files, want) {
		t.Fatalf("searched %q\nwant %q", files, want)
	}
}

// TestGrepCap checks that the output stops at the match cap, keeps the
// first matches in order, and says how many there were.
func TestGrepCap(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("match\n", 10)
	}
	ws := newWorkspace(t, files)
	res := run(t, ws, Options{MaxOutputBytes: 1 << 20}, "grep", `{"pattern":"match"}`)
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if len(lines) != maxGrepMatches+1 || lines[0] != "f00.txt:1: match" || lines[maxGrepMatches-1] != "f19.txt:10: match" {
		t.Fatalf("%d lines: first %q, last match %q", len(lines), lines[0], lines[len(lines)-2])
	}
	if want := "(showing 200 of 300 matches in 30 files; narrow the pattern, path or include)"; lines[maxGrepMatches] != want {
		t.Fatalf("footer %q", lines[maxGrepMatches])
	}
	small := run(t, ws, Options{MaxOutputBytes: 1024}, "grep", `{"pattern":"match"}`)
	if len(small.Content) > 1024 || !strings.Contains(small.Content, "(showing 52 of 300 matches") {
		t.Fatalf("byte cap not applied (%d bytes): %s", len(small.Content), small.Content)
	}
}

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		expr string
		want literal
	}{
		{expr: "hello", want: literal{s: "hello"}},
		{expr: `func \w+Handler\(`, want: literal{s: "Handler("}},
		{expr: `(foo|bar)baz`, want: literal{s: "baz"}},
		{expr: `a+bcd`, want: literal{s: "bcd"}},
		{expr: `(abcdef)+x`, want: literal{s: "abcdef"}},
		{expr: `x*`, want: literal{}},
		{expr: `foo|bar`, want: literal{}},
		{expr: `[a-z]+`, want: literal{}},
		{expr: `(?i)Hello`, want: literal{s: "hello", fold: true}},
		{expr: `(?i)héllo`, want: literal{}},
		{expr: `ab(?i)CDEF`, want: literal{s: "cdef", fold: true}},
		{expr: `abcde(?i)x`, want: literal{s: "abcde"}},
		{expr: `a{3}`, want: literal{s: "aaa"}},
		{expr: `\x{FFFD}`, want: literal{}},
	}
	for _, tt := range tests {
		if got := requiredLiteral(tt.expr); got != tt.want {
			t.Errorf("requiredLiteral(%q) = %+v, want %+v", tt.expr, got, tt.want)
		}
	}
}

// TestGrepMatcherAgrees checks the prefiltered search against the plain
// definition: a line matches if the regexp matches it.
func TestGrepMatcherAgrees(t *testing.T) {
	corpus := []string{
		"", "\n", "foo", "foo\n", "a foo b\nbar\n\nFOO\n", "Kelvin \u212aey and \u017fite\nkey site\n",
		"line one\r\nline two\r\n", "foo\nbar\nfoo bar\n", "x\x00y\nfoofoo", "naïve café\nNAÏVE\n",
		"abc\ndef\nabcdef\n", "func main() {\n\tHandler(x)\n}\nfunc fooHandler(w) {}\n",
		// Past the 32 bytes a folded literal's search tests at a time.
		strings.Repeat("x", 40) + "ToDo\n" + strings.Repeat("y", 70) + "tOdO z\nto do\n" + strings.Repeat("t", 33) + "odo\n",
		"a ta\u017f\u212a here\n" + strings.Repeat("-", 64) + "TASK\n",
	}
	patterns := []string{
		"foo", "(?i)foo", "(?i)key", "(?i)site", "^foo", "bar$", "^$", "o\\nb", "foo\\s+bar", "[^x]b",
		"x*", "(foo|bar)", "two\\r?$", "(?i)naïve", "abc(def)?", "func \\w+Handler\\(", ".", "\\bfoo\\b",
		"(?i)todo", "(?i)task", "(?i)to(do|ol)", "(?i)^todo", "(?i)todo$",
	}
	for _, p := range patterns {
		m, err := newGrepMatcher(p)
		if err != nil {
			t.Fatal(err)
		}
		plain := regexp.MustCompile(p)
		sc := m.newScanner() // one for every text, as a worker keeps its own
		for _, text := range corpus {
			var got []int
			m.search(sc, []byte(text), func(n int, _ []byte) { got = append(got, n) })
			var want []int
			for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				if text != "" && plain.MatchString(strings.TrimSuffix(line, "\r")) {
					want = append(want, i+1)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("pattern %q on %q: lines %v, want %v", p, text, got, want)
			}
		}
	}
}

func TestLiteralFinder(t *testing.T) {
	tests := []struct {
		lit, text string
		fold      bool
		want      int
	}{
		{lit: "todo", text: "a TODO here", fold: true, want: 2},
		{lit: "todo", text: "a TODO here", want: -1},
		{lit: "TODO", text: "a TODO here", want: 2},
		{lit: "todo", text: "tod", fold: true, want: -1},
		{lit: "x@y", text: "0123456789abcdefx`yx@y", fold: true, want: 19},
		{lit: "ab", text: strings.Repeat("a", 30) + "b", want: 29},
		{lit: "zz", text: "z", want: -1},
		{lit: "q", text: "", want: -1},
	}
	for _, tt := range tests {
		if got := newLiteralFinder(tt.lit, tt.fold).index([]byte(tt.text)); got != tt.want {
			t.Errorf("index(%q in %q, fold %v) = %d, want %d", tt.lit, tt.text, tt.fold, got, tt.want)
		}
	}
	// Every literal and text over a small alphabet, against a plain search.
	alphabet := "aAbB@`z"
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		word := func(n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			return string(b)
		}
		lit, text, fold := strings.ToLower(word(1+rng.IntN(4))), word(rng.IntN(200)), rng.IntN(2) == 0
		want := strings.Index(text, lit)
		if fold {
			want = strings.Index(strings.ToLower(text), lit)
		}
		// Each search without pairScan and, where the processor has AVX2,
		// with it; indexCommon is the one for literals whose rarest byte is
		// common, tried whatever it is.
		f := newLiteralFinder(lit, fold)
		for _, vector := range []bool{false, hasPairScan} {
			f.vector = vector
			if got := f.index([]byte(text)); got != want {
				t.Fatalf("index(%q in %q, fold %v, vector %v) = %d, want %d", lit, text, fold, vector, got, want)
			}
			if got := f.indexCommon([]byte(text), 0); got != want {
				t.Fatalf("indexCommon(%q in %q, fold %v, vector %v) = %d, want %d", lit, text, fold, vector, got, want)
			}
		}
	}
}
