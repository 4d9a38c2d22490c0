package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestListDir(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"b.txt":       "hello",
		"a/x.go":      "package a\n",
		"c":           "->b.txt",
		".hidden":     "",
		"empty/":      "",
		"sub/z.txt":   "z",
		"sub/inner/":  "",
		"sublink":     "->sub",
		"outlink":     "->/etc",
		"sub/out.txt": "->../../x",
	})
	tests := []struct {
		name, args, want string
		isErr            bool
	}{
		{name: "root", args: `{}`, want: "8 entries in .\n" +
			"file  .hidden (0 bytes)\n" +
			"dir   a/\n" +
			"file  b.txt (5 bytes)\n" +
			"link  c -> b.txt\n" +
			"dir   empty/\n" +
			"link  outlink -> /etc\n" +
			"dir   sub/\n" +
			"link  sublink -> sub\n"},
		{name: "explicit dot", args: `{"path":"."}`, want: "8 entries in .\n"},
		{name: "subdir", args: `{"path":"sub"}`, want: "3 entries in sub\ndir   inner/\nlink  out.txt -> ../../x\nfile  z.txt (1 bytes)\n"},
		{name: "through link", args: `{"path":"sublink"}`, want: "3 entries in sublink\n"},
		{name: "empty", args: `{"path":"empty"}`, want: "(empty is empty)"},
		{name: "file", args: `{"path":"b.txt"}`, want: "error: b.txt is a file, not a directory; use read_file to read it", isErr: true},
		{name: "missing", args: `{"path":"nope"}`, want: "error: nope does not exist", isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, ws, Options{}, "list_dir", tt.args)
			if res.IsError != tt.isErr || !strings.HasPrefix(res.Content, tt.want) {
				t.Fatalf("got %+v\nwant IsError=%v, content starting with\n%s", res, tt.isErr, tt.want)
			}
		})
	}
}

func TestListDirCap(t *testing.T) {
	files := map[string]string{}
	for i := range maxDirEntries + 7 {
		files[fmt.Sprintf("d/f%04d", i)] = ""
	}
	ws := newWorkspace(t, files)
	res := run(t, ws, Options{MaxOutputBytes: 1 << 20}, "list_dir", `{"path":"d"}`)
	if !strings.HasSuffix(res.Content, "file  f0499 (0 bytes)\n(7 more not shown; use glob to narrow down)\n") {
		t.Fatalf("content ends with %q", res.Content[len(res.Content)-120:])
	}
	if res.Summary != "507 entries" {
		t.Fatalf("summary %q", res.Summary)
	}
}
