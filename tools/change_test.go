package tools

import (
	"encoding/json"
	"testing"
)

// TestChangeAndPlace: a write can tell, before it runs, the file it
// changes, its text before and after, and the first line it touches; a
// read names the file and line it starts at; a search names none.
func TestChangeAndPlace(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.go": "one\ntwo\nthree\n", "link.go": "->a.go"})
	reg := Default(ws, Options{})
	prepare := func(name, args string) Call {
		t.Helper()
		tool, _ := reg.Lookup(name)
		c, err := tool.Prepare(json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tests := []struct {
		name, tool, args string
		want             Change
		noChange         bool
		place            Place
		placed           bool
	}{
		{"edit", "edit_file", `{"path":"link.go","old_string":"three","new_string":"3"}`,
			Change{Path: "a.go", Before: "one\ntwo\nthree\n", Existed: true, After: "one\ntwo\n3\n", Line: 3}, false,
			Place{Path: "link.go"}, true},
		{"overwrite", "write_file", `{"path":"a.go","content":"one\nTWO\n"}`,
			Change{Path: "a.go", Before: "one\ntwo\nthree\n", Existed: true, After: "one\nTWO\n", Line: 2}, false,
			Place{Path: "a.go"}, true},
		{"create", "write_file", `{"path":"new.txt","content":"hi\n"}`,
			Change{Path: "new.txt", After: "hi\n", Line: 1}, false, Place{Path: "new.txt"}, true},
		{"read", "read_file", `{"path":"a.go","offset":2}`, Change{}, true, Place{Path: "a.go", Line: 2}, true},
		{"search", "grep", `{"pattern":"two"}`, Change{}, true, Place{}, false},
	}
	for _, tt := range tests {
		c := prepare(tt.tool, tt.args)
		ch, ok, err := ChangeOf(t.Context(), c)
		if ok == tt.noChange || err != nil || ch != tt.want {
			t.Errorf("%s: change %+v, %v, %v; want %+v", tt.name, ch, ok, err, tt.want)
		}
		if p, ok := PlaceOf(c); ok != tt.placed || p != tt.place {
			t.Errorf("%s: place %+v, %v; want %+v", tt.name, p, ok, tt.place)
		}
	}
	if _, ok, err := ChangeOf(t.Context(), prepare("edit_file", `{"path":"a.go","old_string":"four","new_string":"4"}`)); !ok || err == nil {
		t.Errorf("an edit that cannot apply told a change")
	}
}
