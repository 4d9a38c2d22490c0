package tools

import (
	"fmt"
	"strings"
	"testing"
)

// handlers is a Go file of 30 small handler functions, 4 lines each.
func handlers(n int) string {
	var b strings.Builder
	b.WriteString("package api\n\n")
	for i := range n {
		fmt.Fprintf(&b, "func handle%d(w http.ResponseWriter, r *http.Request) {\n\tlog.Printf(\"handler %d: %%s\", r.URL)\n\twriteJSON(w, result%d)\n}\n", i, i, i)
	}
	return b.String()
}

func TestSimilarRegion(t *testing.T) {
	src := handlers(30) // handle7 is at lines 31-34
	tests := []struct {
		name    string
		content string
		old     string
		want    lineRange
		wantOK  bool
		covers  bool // want holds lines the result, padded as shown, must cover
	}{
		{name: "one line misremembered", content: src,
			old: "\tlog.Printf(\"handler 7: %v\", r.URL.Path)", want: lineRange{31, 32}, wantOK: true},
		{name: "block with a renamed call", content: src,
			old:  "func handle7(w http.ResponseWriter, r *http.Request) {\n\tlog.Printf(\"handler 7: %s\", r.URL)\n\twriteJSONResponse(w, result7)\n}",
			want: lineRange{30, 34}, wantOK: true},
		{name: "indentation and a typo", content: src,
			old: "    writeJSON(w, reslt22)\n}", want: lineRange{92, 94}, wantOK: true},
		{name: "a line too many", content: src,
			old: "\twriteJSON(w, result7)\n\treturn nil\n}", want: lineRange{30, 34}, wantOK: true, covers: true},
		{name: "a line too few", content: src,
			old: "func handle9(w http.ResponseWriter, r *http.Request) {\n\twriteJSON(w, result9)\n}", want: lineRange{38, 42}, wantOK: true, covers: true},
		{name: "old longer than the file", content: "a := 1\nb := 2\n",
			old: "a := 1\nb := 3\nc := 4\nd := 5", want: lineRange{0, 2}, wantOK: true},
		{name: "the aligned window, not one beside it", content: "alpha\nbeta\ngamma := compute(1)\ndelta\nepsilon\n",
			old: "gamma := compute(2)", want: lineRange{2, 3}, wantOK: true},
		{name: "earliest of equals", content: "x = f(1)\ny\nx = f(1)\n",
			old: "x = f(2)", want: lineRange{0, 1}, wantOK: true},
		{name: "nothing alike", content: src, old: "SELECT * FROM users WHERE id = 9", wantOK: false},
		{name: "empty file", content: "", old: "x", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := similarRegion(tt.content, tt.old)
			if tt.covers {
				n := len(textLines(tt.old))
				if !ok || got.start-similarPad > tt.want.start || got.end+similarPad < tt.want.end || got.end-got.start != n {
					t.Fatalf("got %v, %v; want %d lines that, padded, cover %v", got, ok, n, tt.want)
				}
				return
			}
			if ok != tt.wantOK || ok && got != tt.want {
				t.Fatalf("got %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestEditNoMatchShowsSimilar checks what the model is shown when nothing
// matches: the most similar lines, numbered as read_file numbers them,
// with two lines around them.
func TestEditNoMatchShowsSimilar(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"api.go": handlers(30)})
	res := run(t, ws, Options{}, "edit_file", jsonArgs(t, map[string]any{"path": "api.go",
		"old_string": "\tlog.Printf(\"handler 7: %v\", r.URL)\n\twriteJSON(w, result7)", "new_string": "\twriteJSON(w, result8)"}))
	want := "error: old_string was not found in api.go; the file was not changed. " +
		"The most similar text is at lines 32-33, shown here as read_file shows it; " +
		"copy old_string exactly from it (without the line numbers):\n" +
		"    30\t}\n" +
		"    31\tfunc handle7(w http.ResponseWriter, r *http.Request) {\n" +
		"    32\t\tlog.Printf(\"handler 7: %s\", r.URL)\n" +
		"    33\t\twriteJSON(w, result7)\n" +
		"    34\t}\n" +
		"    35\tfunc handle8(w http.ResponseWriter, r *http.Request) {\n"
	if !res.IsError || res.Content != want || res.Summary != "no match" {
		t.Fatalf("got %q\nwant %q", res.Content, want)
	}
}

func TestShowLinesCapped(t *testing.T) {
	lines := splitLines(numberedLines(100))
	got := showLines(lines, lineRange{10, 80})
	if n := strings.Count(got, "\n"); n != maxShownLines {
		t.Fatalf("showed %d lines, want %d", n, maxShownLines)
	}
	if !strings.HasPrefix(got, "     9\tline 0009\n") || !strings.HasSuffix(got, "    38\tline 0038\n") {
		t.Fatalf("shown:\n%s", got)
	}
	if got := showLines(lines, lineRange{0, 1}); got != "     1\tline 0001\n     2\tline 0002\n     3\tline 0003\n" {
		t.Fatalf("at the start: %q", got)
	}
}

// BenchmarkSimilarRegion times the search on a 120,000-line file, the
// worst case being an old_string of many lines that matches nothing.
func BenchmarkSimilarRegion(b *testing.B) {
	src := handlers(30000)
	old := strings.Repeat("\tlog.Printf(\"handler: %v\", r.URL.Path)\n\twriteJSON(w, nil)\n", 30)
	for b.Loop() {
		similarRegion(src, old)
	}
}
