package tools

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// goFunc is a Go file indented with tabs, as gofmt leaves it.
const goFunc = "package main\n\nfunc f(x int) {\n\tif x > 0 {\n\t\tprintln(x)\n\t}\n}\n"

// pyClass is a Python file whose methods sit at a 4-space base indent.
const pyClass = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"

func TestApplyEditLoose(t *testing.T) {
	tests := []struct {
		name          string
		content       string
		old, new      string
		all           bool
		want          string      // the content afterwards
		wantLines     []int       // where replacements start in it
		wantMatched   []lineRange // 0-based; nil means an exact match
		wantReindent  bool
		wantErr       error // errNoMatch, or a *ambiguousError or *indentError to match by type
		wantErrLines  []int
		wantIndentErr lineRange
	}{
		{name: "2 spaces for tabs, nested if in a func", content: goFunc,
			old:       "  if x > 0 {\n    println(x)\n  }\n",
			new:       "  if x > 0 {\n    if x > 9 {\n      println(x)\n    }\n  }\n",
			want:      "package main\n\nfunc f(x int) {\n\tif x > 0 {\n\t\tif x > 9 {\n\t\t\tprintln(x)\n\t\t}\n\t}\n}\n",
			wantLines: []int{4}, wantMatched: []lineRange{{3, 6}}, wantReindent: true},
		{name: "4 spaces for tabs, base indent dropped", content: goFunc,
			old:       "if x > 0 {\n    println(x)\n}",
			new:       "if x > 0 {\n    println(x)\n    for {\n        break\n    }\n}",
			want:      "package main\n\nfunc f(x int) {\n\tif x > 0 {\n\t\tprintln(x)\n\t\tfor {\n\t\t\tbreak\n\t\t}\n\t}\n}\n",
			wantLines: []int{4}, wantMatched: []lineRange{{3, 6}}, wantReindent: true},
		{name: "python base indent dropped", content: pyClass,
			old:       "def f(self):\n    return 1\n",
			new:       "def f(self):\n    if self:\n        return 1\n    return 0\n",
			want:      "class A:\n    def f(self):\n        if self:\n            return 1\n        return 0\n\n    def g(self):\n        return 2\n",
			wantLines: []int{2}, wantMatched: []lineRange{{1, 3}}, wantReindent: true},
		{name: "single line in spaces, new lines nested", content: goFunc,
			old:       "    println(x)",
			new:       "    if x > 9 {\n      println(x)\n    }",
			want:      "package main\n\nfunc f(x int) {\n\tif x > 0 {\n\t\tif x > 9 {\n\t\t\tprintln(x)\n\t\t}\n\t}\n}\n",
			wantLines: []int{5}, wantMatched: []lineRange{{4, 5}}, wantReindent: true},
		{name: "single line at line start is exact, as before", content: pyClass,
			old:  "return 2",
			new:  "return 3",
			want: strings.Replace(pyClass, "return 2", "return 3", 1), wantLines: []int{6}},
		{name: "dedent below old's shallowest line", content: goFunc,
			old:       "  println(x)\n",
			new:       "  println(x)\nreturn\n",
			want:      "package main\n\nfunc f(x int) {\n\tif x > 0 {\n\t\tprintln(x)\n\treturn\n\t}\n}\n",
			wantLines: []int{5}, wantMatched: []lineRange{{4, 5}}, wantReindent: true},
		{name: "trailing spaces in the file", content: "a := 1  \nb := 2\t\nc := 3\n",
			old: "a := 1\nb := 2\n", new: "a := 10\nb := 20\n",
			want: "a := 10\nb := 20\nc := 3\n", wantLines: []int{1}, wantMatched: []lineRange{{0, 2}}},
		{name: "trailing spaces only: new_string kept as sent", content: "a := 1  \nb := 2\n",
			old: "a := 1\nb := 2", new: "a := 1\n\tc := 3\n   \nb := 2",
			want: "a := 1\n\tc := 3\n   \nb := 2\n", wantLines: []int{1}, wantMatched: []lineRange{{0, 2}}},
		{name: "trailing spaces in old_string", content: "\tx := 1\n\ty := 2\n",
			old: "\tx := 1 \n\ty := 2", new: "\tx := 3\n\ty := 4",
			want: "\tx := 3\n\ty := 4\n", wantLines: []int{1}, wantMatched: []lineRange{{0, 2}}},
		{name: "tabs for spaces", content: "def f():\n  if x:\n    y()\n",
			old: "\tif x:\n\t\ty()\n", new: "\tif x:\n\t\ty()\n\t\tz()\n",
			want: "def f():\n  if x:\n    y()\n    z()\n", wantLines: []int{2}, wantMatched: []lineRange{{1, 3}}, wantReindent: true},
		{name: "crlf file keeps crlf", content: "a\r\n\tb\r\n\tc\r\nd\r\n",
			old: "b\nc\n", new: "b\n  x\nc\n",
			want: "a\r\n\tb\r\n\t\tx\r\n\tc\r\nd\r\n", wantLines: []int{2}, wantMatched: []lineRange{{1, 3}}, wantReindent: true},
		{name: "no final newline kept", content: "x\n\ty\n\tz",
			old: "y\nz\n", new: "y\nw\n",
			want: "x\n\ty\n\tw", wantLines: []int{2}, wantMatched: []lineRange{{1, 3}}, wantReindent: true},
		{name: "delete lines", content: goFunc,
			old: "  if x > 0 {\n    println(x)\n  }\n", new: "",
			want: "package main\n\nfunc f(x int) {\n}\n", wantLines: []int{4}, wantMatched: []lineRange{{3, 6}}, wantReindent: true},
		{name: "blank line in old matches a line of spaces", content: "\ta()\n   \n\tb()\n",
			old: "a()\n\nb()", new: "a()\nb()",
			want: "\ta()\n\tb()\n", wantLines: []int{1}, wantMatched: []lineRange{{0, 3}}, wantReindent: true},
		{name: "two loose matches refused", content: "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n",
			old: "  return 1", new: "  return 2", wantErr: &ambiguousError{}, wantErrLines: []int{2, 6}},
		{name: "replace_all loose at two depths", content: "if a {\n\tf()\n\tif b {\n\t\tf()\n\t}\n}\n",
			old: "  f()", new: "  if ok {\n    f()\n  }", all: true,
			want:      "if a {\n\tif ok {\n\t\tf()\n\t}\n\tif b {\n\t\tif ok {\n\t\t\tf()\n\t\t}\n\t}\n}\n",
			wantLines: []int{2, 6}, wantMatched: []lineRange{{1, 2}, {3, 4}}, wantReindent: true},
		{name: "exact inside an indented line counts", content: "\tx := 1\nx := 1\n",
			old: "x := 1\n", new: "y := 1\n", wantErr: &ambiguousError{}, wantErrLines: []int{1, 2}},
		{name: "exact beats loose", content: "\tfoo()\n  foo() \n", // loosely, both lines match
			old: "\tfoo()\n", new: "\tbar()\n", want: "\tbar()\n  foo() \n", wantLines: []int{1}},
		{name: "exact mid-line is unchanged behaviour", content: goFunc,
			old: "println(x)", new: "print(x)",
			want: strings.Replace(goFunc, "println(x)", "print(x)", 1), wantLines: []int{5}},
		{name: "old deeper line not deeper in the file", content: "a\n\tb\n\tc\n",
			old: "a\n  b\n    c", new: "a\n  b\n    d", wantErr: &indentError{}, wantIndentErr: lineRange{0, 3}},
		{name: "old lines alike, file lines not", content: "a\n\tb\n",
			old: "  a\n  b", new: "  a\n  c", wantErr: &indentError{}, wantIndentErr: lineRange{0, 2}},
		{name: "whole lines only", content: "\treturn foo(a)\n",
			old: "foo(a) ", new: "bar(a)", wantErr: errNoMatch},
		{name: "blank old never matches loosely", content: "a\n\n\nb\n",
			old: " \n \n", new: "x", wantErr: errNoMatch},
		{name: "nothing alike", content: goFunc, old: "  for {\n  }", new: "x", wantErr: errNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := applyEdit(tt.content, tt.old, tt.new, tt.all)
			if tt.wantErr != nil {
				checkEditErr(t, err, tt.wantErr, tt.wantErrLines, tt.wantIndentErr)
				if e.out != "" || e.lines != nil {
					t.Fatalf("a refused edit has something to write: %+v", e)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if e.out != tt.want || !slices.Equal(e.lines, tt.wantLines) {
				t.Fatalf("got %q at %v\nwant %q at %v", e.out, e.lines, tt.want, tt.wantLines)
			}
			if !slices.Equal(e.loose.matched, tt.wantMatched) || e.loose.reindented != tt.wantReindent {
				t.Fatalf("loose = %+v; want matched %v, reindented %v", e.loose, tt.wantMatched, tt.wantReindent)
			}
		})
	}
}

func checkEditErr(t *testing.T, err, want error, lines []int, at lineRange) {
	t.Helper()
	switch want.(type) {
	case *ambiguousError:
		amb, ok := errors.AsType[*ambiguousError](err)
		if !ok || !slices.Equal(amb.lines, lines) {
			t.Fatalf("err = %v (%+v); want ambiguous at %v", err, amb, lines)
		}
	case *indentError:
		ie, ok := errors.AsType[*indentError](err)
		if !ok || ie.at != at {
			t.Fatalf("err = %v; want an indentation error at %v", err, at)
		}
	default:
		if !errors.Is(err, want) {
			t.Fatalf("err = %v; want %v", err, want)
		}
	}
}

// editSeeds adds inputs for the edit fuzz targets.
func editSeeds(f *testing.F) {
	f.Add(goFunc, "  if x > 0 {\n    println(x)\n  }\n", "  if x > 0 {\n    if x > 9 {\n      println(x)\n    }\n  }\n", false)
	f.Add(pyClass, "def f(self):\n    return 1\n", "def f(self):\n    if self:\n        return 1\n", false)
	f.Add("a := 1  \nb := 2\t\n", "a := 1\nb := 2\n", "a := 3\n", false)
	f.Add("a\r\n\tb\r\n\tc\r\n", "b\nc\n", "b\n  x\nc\n", false)
	f.Add("func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 1\n}\n", "  return 1", "  return 2", false)
	f.Add("func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 1\n}\n", "  return 1", "  return 2\n  // done", true)
	f.Add("a\n\tb\n\tc\n", "a\n  b\n    c", "x", false)
	f.Add("x\n\ty\n\tz", "y\nz\n", "", false)
	f.Add("\n\n\n", "\n", "x", true)
	f.Add("a\na\na\n", " a\n a", "b", true)
	f.Add(handlers(3), "\tlog.Printf(\"handler 1\")", "x", false)
}

// FuzzEditFallback checks applyEdit's tolerance: it never panics; an exact
// unique match behaves as strings.Replace; a loose match is taken only
// when there is no exact one, replaces runs of lines equal to old_string's
// ignoring whitespace, changes no other line, and writes new_string's
// lines changed at most in their indentation; a refusal has nothing to
// write, and the similar region it shows lies in the file.
func FuzzEditFallback(f *testing.F) {
	editSeeds(f)
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		if old == "" || old == new {
			return // refused by Prepare before any matching
		}
		e, err := applyEdit(content, old, new, all)
		switch {
		case err != nil:
			if e.out != "" || e.lines != nil || e.loose.matched != nil {
				t.Fatalf("refused with something to write: %+v", e)
			}
			checkSimilar(t, content, old)
		case countOverlapping(content, old) == 1 && !all:
			if e.out != strings.Replace(content, old, new, 1) || e.loose.matched != nil {
				t.Fatalf("one exact match: got %+v", e)
			}
		case e.loose.matched != nil:
			checkLoose(t, content, old, new, all, e)
		}
	})
}

// checkLoose checks a loose edit e of content against what it must be.
func checkLoose(t *testing.T, content, old, new string, all bool, e edit) {
	t.Helper()
	if countOverlapping(content, old) > 0 || countOverlapping(content, toCRLF(old)) > 0 && strings.Contains(content, "\r\n") {
		t.Fatalf("loose match taken over an exact one")
	}
	lines, pat, outLines := splitLines(content), lineKeys(textLines(old)), splitLines(e.out)
	m := e.loose.matched
	if !all && len(m) != 1 || len(m) != len(e.lines) {
		t.Fatalf("matched %v at %v", m, e.lines)
	}
	prev := 0
	for _, r := range m {
		if r.start < prev || !slices.Equal(lineKeys(lines[r.start:r.end]), pat) {
			t.Fatalf("range %v does not match old_string's lines %q", r, pat)
		}
		prev = r.end
	}
	if !strings.HasPrefix(e.out, strings.Join(lines[:m[0].start], "")) ||
		!strings.HasSuffix(e.out, strings.Join(lines[m[len(m)-1].end:], "")) {
		t.Fatalf("lines outside the match changed: %q -> %q", content, e.out)
	}
	outLines = append(outLines, "") // a blank last line with no newline is no line
	for _, at := range e.lines {
		for k, nl := range textLines(new) {
			if at-1+k >= len(outLines) || lineKey(outLines[at-1+k]) != lineKey(nl) {
				t.Fatalf("new_string's line %q is not at line %d of %q", nl, at+k, e.out)
			}
		}
	}
}

// checkSimilar checks that the similar region of a failed edit lies in the
// file and is shown within bounds.
func checkSimilar(t *testing.T, content, old string) {
	t.Helper()
	r, ok := similarRegion(content, old)
	if !ok {
		return
	}
	lines := splitLines(content)
	if r.start < 0 || r.end > len(lines) || r.end <= r.start {
		t.Fatalf("similar region %v outside a file of %d lines", r, len(lines))
	}
	if n := strings.Count(showLines(lines, r), "\n"); n > maxShownLines || n < min(r.end-r.start, maxShownLines) {
		t.Fatalf("showed %d lines of region %v", n, r)
	}
}

// FuzzEditRefusal checks, through edit_file and a real file, that an edit
// applyEdit refuses is refused and leaves the file as it was, bytes and
// mtime. It is apart from FuzzEditFallback because writing a file for
// each input makes it slow.
func FuzzEditRefusal(f *testing.F) {
	editSeeds(f)
	dir := f.TempDir()
	tool, _ := Default(openWorkspace(f, dir), Options{}).Lookup("edit_file")
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		if old == "" || old == new || !utf8.ValidString(old) || !utf8.ValidString(new) {
			return // refused by Prepare, or JSON would carry other strings
		}
		if _, err := applyEdit(content, old, new, all); err != nil {
			checkRefusalKeepsFile(t, tool, dir, content, old, new, all)
		}
	})
}

// checkRefusalKeepsFile runs the refused edit through edit_file on a real
// file and checks that the file is left as it was.
func checkRefusalKeepsFile(t *testing.T, tool Tool, dir, content, old, new string, all bool) {
	t.Helper()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	unchanged := stampFile(t, p)
	args, _ := json.Marshal(map[string]any{"path": "f.txt", "old_string": old, "new_string": new, "replace_all": all})
	call, err := tool.Prepare(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Run(t.Context(), Caller{})
	if err != nil || !res.IsError {
		t.Fatalf("applyEdit refused but edit_file did not: %+v %v", res, err)
	}
	unchanged()
}
