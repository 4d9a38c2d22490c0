package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	long := strings.Repeat("é", 1500) // 3000 bytes on one line
	ws := newWorkspace(t, map[string]string{
		"a.txt":      "alpha\nbeta\ngamma\n",
		"nonl.txt":   "one\ntwo",
		"crlf.txt":   "one\r\ntwo\r\n",
		"empty.txt":  "",
		"many.txt":   numberedLines(1000),
		"long.txt":   long + "\nshort\n",
		"bin.dat":    "PNG\x00\x01\x02",
		"dir/x.txt":  "x",
		"blank.txt":  "\n\n",
		"uni/ü.txt":  "ü\n",
		"tabs.go":    "\tfunc main() {}\n",
		"late-nul":   strings.Repeat("a", 9000) + "\x00",
		"sub/b.txt":  "b\n",
		"link.txt":   "->a.txt",
		"dirlink":    "->sub",
		"sub/up.txt": "->../a.txt",
	})
	tests := []struct {
		name, args, want, summary string
		isErr                     bool
	}{
		{name: "whole", args: `{"path":"a.txt"}`, want: "     1\talpha\n     2\tbeta\n     3\tgamma\n", summary: "3 lines"},
		{name: "no final newline", args: `{"path":"nonl.txt"}`, want: "     1\tone\n     2\ttwo\n", summary: "2 lines"},
		{name: "crlf", args: `{"path":"crlf.txt"}`, want: "     1\tone\n     2\ttwo\n"},
		{name: "blank lines", args: `{"path":"blank.txt"}`, want: "     1\t\n     2\t\n"},
		{name: "tabs kept", args: `{"path":"tabs.go"}`, want: "     1\t\tfunc main() {}\n"},
		{name: "unicode path", args: `{"path":"uni/ü.txt"}`, want: "     1\tü\n"},
		{name: "offset", args: `{"path":"a.txt","offset":2}`, want: "     2\tbeta\n     3\tgamma\n", summary: "lines 2-3 of 3"},
		{name: "offset and limit", args: `{"path":"a.txt","offset":2,"limit":1}`, want: "     2\tbeta\n(lines 2-2 of 3; call read_file with offset=3 to read more)", summary: "lines 2-2 of 3"},
		{name: "offset zero is one", args: `{"path":"a.txt","offset":0,"limit":1}`, want: "     1\talpha\n(lines 1-1 of 3; call read_file with offset=2 to read more)"},
		{name: "paged by default", args: `{"path":"many.txt"}`, want: "   400\tline 0400\n(lines 1-400 of 1000; call read_file with offset=401 to read more)", summary: "lines 1-400 of 1000"},
		{name: "last page", args: `{"path":"many.txt","offset":990}`, want: "   990\tline 0990\n", summary: "lines 990-1000 of 1000"},
		{name: "past end", args: `{"path":"a.txt","offset":4}`, want: "error: offset 4 is past the end of a.txt (3 lines)", isErr: true},
		{name: "empty", args: `{"path":"empty.txt"}`, want: "(empty.txt is empty)"},
		{name: "long line cut", args: `{"path":"long.txt"}`, want: "é [... line cut: 1000 more bytes]\n     2\tshort\n"},
		{name: "binary", args: `{"path":"bin.dat"}`, want: "error: bin.dat is a binary file (6 bytes); read_file only reads text", isErr: true},
		{name: "nul after sniff is text", args: `{"path":"late-nul","limit":1}`, want: "     1\taaaa"},
		{name: "directory", args: `{"path":"dir"}`, want: "error: dir is a directory; use list_dir to see what it holds", isErr: true},
		{name: "missing", args: `{"path":"nope.txt"}`, want: "error: nope.txt does not exist; use glob or list_dir to find files", isErr: true},
		{name: "symlink inside", args: `{"path":"link.txt"}`, want: "     1\talpha\n"},
		{name: "through dir link", args: `{"path":"dirlink/b.txt"}`, want: "     1\tb\n"},
		{name: "relative link up", args: `{"path":"sub/up.txt"}`, want: "     1\talpha\n"},
		{name: "negative limit", args: `{"path":"a.txt","limit":-1}`, want: "offset and limit must be positive", isErr: true},
		{name: "limit as string", args: `{"path":"a.txt","limit":"1"}`, want: "(lines 1-1 of 3;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, ws, Options{}, "read_file", tt.args)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			if !strings.Contains(res.Content, tt.want) {
				t.Fatalf("content:\n%s\nwant it to contain:\n%s", res.Content, tt.want)
			}
			if tt.summary != "" && res.Summary != tt.summary {
				t.Fatalf("summary %q, want %q", res.Summary, tt.summary)
			}
		})
	}
}

func TestReadFileExactPage(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"many.txt": numberedLines(1000)})
	res := run(t, ws, Options{ReadLimit: 2}, "read_file", `{"path":"many.txt","offset":5}`)
	want := "     5\tline 0005\n     6\tline 0006\n(lines 5-6 of 1000; call read_file with offset=7 to read more)"
	if res.Content != want {
		t.Fatalf("got %q\nwant %q", res.Content, want)
	}
}

// TestReadFileByteBudget checks that a page stops at the output cap on a
// line boundary and says where to go on.
func TestReadFileByteBudget(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "%03d %s\n", i+1, strings.Repeat("x", 96))
	}
	ws := newWorkspace(t, map[string]string{"wide.txt": b.String()})
	res := run(t, ws, Options{MaxOutputBytes: 1024}, "read_file", `{"path":"wide.txt"}`)
	if len(res.Content) > 1024 {
		t.Fatalf("content is %d bytes, over the cap", len(res.Content))
	}
	if !strings.HasSuffix(res.Content, "(lines 1-8 of 100; call read_file with offset=9 to read more)") {
		t.Fatalf("content:\n%s", res.Content)
	}
}

// TestSpecialFilesRefused checks that a FIFO is refused at once rather than
// blocking the call, by read_file, edit_file and write_file alike.
func TestSpecialFilesRefused(t *testing.T) {
	ws := newWorkspace(t, nil)
	if err := syscall.Mkfifo(filepath.Join(ws.Dir(), "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	for tool, args := range map[string]string{
		"read_file":  `{"path":"fifo"}`,
		"edit_file":  `{"path":"fifo","old_string":"a","new_string":"b"}`,
		"write_file": `{"path":"fifo","content":"x"}`,
	} {
		res := run(t, ws, Options{}, tool, args)
		if !res.IsError || !strings.Contains(res.Content, "fifo is not a regular file") {
			t.Errorf("%s: %+v", tool, res)
		}
	}
}
