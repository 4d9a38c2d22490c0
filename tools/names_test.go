package tools

import (
	"strings"
	"testing"
)

// TestNamesThatAreNotUTF8: a name whose bytes are not UTF-8 is listed,
// globbed and grepped with those bytes as \xNN, never as U+FFFD nor
// dropped, and the name as shown reads, edits and lists the file (F8).
func TestNamesThatAreNotUTF8(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"caf\xe9.txt": "coffee\n", "bad\xff\xfename.go": "package bad\n",
		"dir\xe9/in.txt": "inside\n", `back\slash.txt`: "b\n"})
	listed := run(t, ws, Options{}, "list_dir", `{}`).Content
	for _, want := range []string{`file  caf\xe9.txt (7 bytes)`, `file  bad\xff\xfename.go (12 bytes)`, `dir   dir\xe9/`, `file  back\slash.txt`} {
		if !strings.Contains(listed, want) {
			t.Errorf("list_dir lacks %q:\n%s", want, listed)
		}
	}
	if strings.Contains(listed, "\ufffd") {
		t.Errorf("list_dir wrote U+FFFD:\n%s", listed)
	}
	if got := run(t, ws, Options{}, "glob", `{"pattern":"**/*.txt"}`).Content; !strings.Contains(got, `dir\xe9/in.txt`) {
		t.Errorf("glob:\n%s", got)
	}
	if got := run(t, ws, Options{}, "grep", `{"pattern":"coffee"}`).Content; !strings.Contains(got, `caf\xe9.txt:1: coffee`) {
		t.Errorf("grep:\n%s", got)
	}
	if got := run(t, ws, Options{}, "read_file", `{"path":"caf\\xe9.txt"}`); got.IsError || !strings.Contains(got.Content, "coffee") {
		t.Errorf("read_file of the name shown: %+v", got)
	}
	if got := run(t, ws, Options{}, "read_file", `{"path":"dir\\xe9/in.txt"}`); got.IsError || !strings.Contains(got.Content, "inside") {
		t.Errorf("read_file in the directory shown: %+v", got)
	}
	if got := run(t, ws, Options{}, "read_file", `{"path":"back\\slash.txt"}`); got.IsError {
		t.Errorf("a backslash in a name is read as itself: %+v", got)
	}
	for name, want := range map[string]string{"caf\xe9": `caf\xe9`, "ok": "ok", "é": "é"} {
		if got := ShowName(name); got != want || readName(got) != name {
			t.Errorf("ShowName(%q) = %q, read back %q", name, got, readName(got))
		}
	}
	if got := readName(`a\x41`); got != `a\x41` {
		t.Errorf(`readName(a\x41) = %q: only bytes that are not UTF-8 are read back`, got)
	}
}
