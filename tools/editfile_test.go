package tools

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestEditFile(t *testing.T) {
	const src = "package main\n\nfunc a() { x := 1 }\n\nfunc b() { x := 1 }\n"
	tests := []struct {
		name    string
		file    string
		args    map[string]any
		want    string
		isErr   bool
		content string   // the file afterwards; "" means unchanged
		repairs []string // Result.Repairs
	}{
		{name: "unique", file: src, args: map[string]any{"old_string": "func a() { x := 1 }", "new_string": "func a() {\n\tx := 2\n}"},
			want:    "edited f.go: 1 replacement at line 3",
			content: "package main\n\nfunc a() {\n\tx := 2\n}\n\nfunc b() { x := 1 }\n"},
		{name: "no match", file: src, args: map[string]any{"old_string": "func c()", "new_string": "func d()"},
			want: "error: old_string was not found in f.go; the file was not changed.", isErr: true},
		{name: "whitespace matters", file: src, args: map[string]any{"old_string": "func a()  {", "new_string": "x"},
			want: "was not found", isErr: true},
		{name: "ambiguous", file: src, args: map[string]any{"old_string": "x := 1", "new_string": "x := 2"},
			want: "error: old_string matches 2 times in f.go (at lines 3, 5); the file was not changed. Include more surrounding lines to make it unique, or set replace_all to true.", isErr: true},
		{name: "overlapping is ambiguous", file: "aaa\n", args: map[string]any{"old_string": "aa", "new_string": "b"},
			want: "matches 2 times", isErr: true},
		{name: "replace all", file: src, args: map[string]any{"old_string": "x := 1", "new_string": "y := 1", "replace_all": true},
			want:    "edited f.go: 2 replacements at lines 3, 5",
			content: strings.ReplaceAll(src, "x := 1", "y := 1")},
		{name: "replace all lines shift", file: "a\na\n", args: map[string]any{"old_string": "a", "new_string": "b\nb", "replace_all": true},
			want: "at lines 1, 3", content: "b\nb\nb\nb\n"},
		{name: "crlf", file: "one\r\ntwo\r\nthree\r\n", args: map[string]any{"old_string": "one\ntwo\n", "new_string": "1\n2\n"},
			want: "1 replacement at line 1", content: "1\r\n2\r\nthree\r\n"},
		{name: "empty old", file: src, args: map[string]any{"old_string": "", "new_string": "x"},
			want: "old_string is empty", isErr: true},
		{name: "same strings", file: src, args: map[string]any{"old_string": "x", "new_string": "x"},
			want: "old_string and new_string are the same", isErr: true},
		{name: "binary", file: "a\x00b", args: map[string]any{"old_string": "a", "new_string": "b"},
			want: "binary file", isErr: true},
		{name: "loose, re-indented", file: goFunc,
			args:    map[string]any{"old_string": "  if x > 0 {\n    println(x)\n  }", "new_string": "  if x > 1 {\n    println(x)\n  }"},
			want:    "edited f.go: 1 replacement at line 4; old_string matched lines 4-6 ignoring indentation; new_string was re-indented to the file's",
			content: strings.Replace(goFunc, "x > 0", "x > 1", 1), repairs: []string{"old_string matched ignoring indentation"}},
		{name: "loose, trailing whitespace", file: "a := 1  \nb := 2\n",
			args:    map[string]any{"old_string": "a := 1\nb := 2", "new_string": "a := 3\nb := 4"},
			want:    "edited f.go: 1 replacement at line 1; old_string matched lines 1-2 ignoring trailing whitespace",
			content: "a := 3\nb := 4\n", repairs: []string{"old_string matched ignoring trailing whitespace"}},
		{name: "loose twice", file: "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n",
			args: map[string]any{"old_string": "  return 1", "new_string": "  return 2"},
			want: "error: old_string matches 2 times in f.go ignoring indentation, and nowhere exactly (at lines 2, 6); the file was not changed.", isErr: true},
		{name: "loose replace_all", file: "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n",
			args:    map[string]any{"old_string": "  return 1", "new_string": "  return 2", "replace_all": true},
			want:    "edited f.go: 2 replacements at lines 2, 6; old_string matched lines 2, 6 ignoring indentation",
			content: "func a() {\n\treturn 2\n}\n\nfunc b() {\n\treturn 2\n}\n", repairs: []string{"old_string matched ignoring indentation"}},
		{name: "loose, indentation does not map", file: "a\n\tb\n\tc\n",
			args: map[string]any{"old_string": "a\n  b\n    c", "new_string": "a\n  b\n    d"},
			want: "error: old_string matches lines 1-3 of f.go only ignoring indentation, and its indentation does not map onto the file's " +
				"(lines indented alike in old_string are not alike in the file, or a deeper one is not deeper); the file was not changed. " +
				"Copy old_string exactly from these lines (without the line numbers):\n     1\ta\n     2\t\tb\n     3\t\tc\n", isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"f.go": tt.file})
			p := filepath.Join(ws.Dir(), "f.go")
			unchanged := stampFile(t, p)
			tt.args["path"] = "f.go"
			res := run(t, ws, Options{}, "edit_file", jsonArgs(t, tt.args))
			if res.IsError != tt.isErr || !strings.Contains(res.Content, tt.want) || !slices.Equal(res.Repairs, tt.repairs) {
				t.Fatalf("result %+v; want IsError=%v, content containing %q and repairs %q", res, tt.isErr, tt.want, tt.repairs)
			}
			if tt.content == "" {
				unchanged()
			} else if got := readString(t, p); got != tt.content {
				t.Fatalf("file holds %q, want %q", got, tt.content)
			}
			assertNoTempFiles(t, ws.Dir())
		})
	}
}

func TestEditFileKeepsModeAndLink(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"bin/run.sh": "echo old\n", "run": "->bin/run.sh"})
	script := filepath.Join(ws.Dir(), "bin/run.sh")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, ws, Options{}, "edit_file", `{"path":"run","old_string":"old","new_string":"new"}`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	fi, err := os.Stat(script)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v, %v; want 0755", fi.Mode().Perm(), err)
	}
	if got := readString(t, script); got != "echo new\n" {
		t.Fatalf("script holds %q", got)
	}
	if li, _ := os.Lstat(filepath.Join(ws.Dir(), "run")); li.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
}

func TestEditFileMissing(t *testing.T) {
	ws := newWorkspace(t, nil)
	res := run(t, ws, Options{}, "edit_file", `{"path":"no.go","old_string":"a","new_string":"b"}`)
	if !res.IsError || !strings.Contains(res.Content, "no.go does not exist; use write_file") {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws.Dir(), "no.go")); err == nil {
		t.Fatal("a failed edit created the file")
	}
}

func TestApplyEditLines(t *testing.T) {
	out, lines, err := replaceExact("x\ny\nx\ny\nx", "x", "z", true)
	if err != nil || out != "z\ny\nz\ny\nz" || !slices.Equal(lines, []int{1, 3, 5}) {
		t.Fatalf("got %q %v %v", out, lines, err)
	}
	_, _, err = replaceExact(strings.Repeat("ab\n", 30), "ab", "c", false)
	var amb *ambiguousError
	if !errors.As(err, &amb) || amb.count != 30 || len(amb.lines) != maxListedLines || amb.lines[19] != 20 {
		t.Fatalf("got %v %+v", err, amb)
	}
	if got := lineList(amb.lines, amb.count); !strings.HasSuffix(got, ", 19, 20, ...") {
		t.Fatalf("lineList = %q", got)
	}
}

// FuzzEditMatch checks replaceExact against the strings package, and
// applyEdit against replaceExact: where an exact match is found, or found
// ambiguous, applyEdit does just what it does.
func FuzzEditMatch(f *testing.F) {
	f.Add("hello world", "world", "there", false)
	f.Add("aaa", "aa", "b", false)
	f.Add("aaa", "aa", "b", true)
	f.Add("x\ny\nx\n", "x", "z", false)
	f.Add("x\ny\nx\n", "x", "z", true)
	f.Add("a\r\nb\r\n", "a\nb", "c\nd", false)
	f.Add("héllo", "é", "e", false)
	f.Add("abc", "", "x", false)
	f.Add("abab", "bab", "", true)
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		if old == "" {
			return // refused by Prepare before any matching
		}
		n := countOverlapping(content, old)
		out, lines, err := replaceExact(content, old, new, all)
		switch {
		case n == 0 || (n > 1 && !all):
			if err == nil || out != content {
				t.Fatalf("%d matches: got %q, %v; want an error and the content unchanged", n, out, err)
			}
		case all:
			if err != nil || out != strings.ReplaceAll(content, old, new) || len(lines) != strings.Count(content, old) {
				t.Fatalf("replace_all: got %q %v %v", out, lines, err)
			}
		default:
			if err != nil || out != strings.Replace(content, old, new, 1) || len(lines) != 1 {
				t.Fatalf("one match: got %q %v %v", out, lines, err)
			}
		}
		e, eerr := applyEdit(content, old, new, all)
		if err == nil && (eerr != nil || e.out != out || len(e.loose.matched) > 0) {
			t.Fatalf("applyEdit differs from an exact match: %+v %v", e, eerr)
		}
		_, ambiguous := errors.AsType[*ambiguousError](err)
		if amb, ok := errors.AsType[*ambiguousError](eerr); ambiguous && (!ok || amb.loose) {
			t.Fatalf("an ambiguous exact match became %+v %v", e, eerr)
		}
	})
}

func countOverlapping(s, sub string) int {
	n := 0
	for i := range len(s) - len(sub) + 1 {
		if s[i:i+len(sub)] == sub {
			n++
		}
	}
	return n
}
