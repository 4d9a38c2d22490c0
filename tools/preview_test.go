package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPreview(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		tool    string
		args    string
		want    []string // lines the diff must hold
		wantErr string
	}{
		{"new file", nil, "write_file", `{"path":"a/new.txt","content":"one\ntwo\n"}`,
			[]string{"--- /dev/null", "+++ a/new.txt", "+one", "+two"}, ""},
		{"overwrite", map[string]string{"f.txt": "keep\nold\n"}, "write_file", `{"path":"f.txt","content":"keep\nnew\n"}`,
			[]string{" keep", "-old", "+new"}, ""},
		{"edit", map[string]string{"main.go": "package main\n\nconst n = 1\n"}, "edit_file",
			`{"path":"main.go","old_string":"const n = 1","new_string":"const n = 2"}`,
			[]string{"-const n = 1", "+const n = 2"}, ""},
		{"edit through an inside symlink", map[string]string{"real.go": "x := 1\n", "link.go": "->real.go"}, "edit_file",
			`{"path":"link.go","old_string":"x := 1","new_string":"x := 2"}`,
			[]string{"-x := 1", "+x := 2"}, ""},
		{"edit without a match", map[string]string{"f.txt": "abc\n"}, "edit_file",
			`{"path":"f.txt","old_string":"zzz","new_string":"y"}`, nil, "old_string was not found in f.txt"},
		{"edit of a missing file", nil, "edit_file",
			`{"path":"missing.txt","old_string":"a","new_string":"b"}`, nil, "missing.txt does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, tt.files)
			tool, _ := Default(ws, Options{}).Lookup(tt.tool)
			call, err := tool.Prepare(json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			diff, ok, err := Preview(call)
			if !ok {
				t.Fatal("a prepared write or edit call has no preview")
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(diff, "\n")
			for _, w := range tt.want {
				if !containsLine(lines, w) {
					t.Errorf("diff lacks %q:\n%s", w, diff)
				}
			}
			for name, content := range tt.files {
				if !strings.HasPrefix(content, "->") && readString(t, filepath.Join(ws.Dir(), name)) != content {
					t.Errorf("preview changed %s", name)
				}
			}
			if _, err := os.Stat(filepath.Join(ws.Dir(), "a")); err == nil {
				t.Error("preview created a directory")
			}
		})
	}
}

func TestReadOnlyCallsHaveNoPreview(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"f.txt": "x"})
	tool, _ := Default(ws, Options{}).Lookup("read_file")
	call, err := tool.Prepare(json.RawMessage(`{"path":"f.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := Preview(call); ok {
		t.Error("read_file offers a preview")
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// TestLargeFilesArePreviewedAsSuch: a write or edit of a file too large to
// diff is previewed as one line saying so, without reading it: a 2 GiB
// file (sparse here) costs nothing. edit_file refuses a file that large.
func TestLargeFilesArePreviewedAsSuch(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"small.txt": "a\n"})
	big := filepath.Join(ws.Dir(), "big.txt")
	if err := os.WriteFile(big, []byte("start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 2<<30); err != nil {
		t.Fatal(err)
	}
	reg := Default(ws, Options{})
	preview := func(name, args string) (string, error) {
		tool, _ := reg.Lookup(name)
		call, err := tool.Prepare(json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		diff, _, err := Preview(call)
		return diff, err
	}
	if got, err := preview("write_file", `{"path":"big.txt","content":"x\n"}`); err != nil || got != "(big.txt: 2 GiB, too large to show the change)" {
		t.Errorf("write over a 2 GiB file: %q, %v", got, err)
	}
	huge := strings.Repeat("y", maxPreview+1)
	if got, _ := preview("write_file", `{"path":"small.txt","content":"`+huge+`"}`); !strings.Contains(got, "too large to show the change") {
		t.Errorf("a write of %d bytes previewed as %q…", len(huge), got[:min(80, len(got))])
	}
	if _, err := preview("edit_file", `{"path":"big.txt","old_string":"start","new_string":"x"}`); err == nil ||
		!strings.Contains(err.Error(), "edit_file edits files up to 10 MiB") {
		t.Errorf("edit of a 2 GiB file: %v", err)
	}
	if got, _ := preview("write_file", `{"path":"small.txt","content":"b\n"}`); !strings.Contains(got, "-a\n+b") {
		t.Errorf("a small write is not diffed: %q", got)
	}
}
