package tools

import (
	"slices"
	"sync"
	"testing"
)

// TestLoadIgnorerLeavesStartToWalk checks that each .gitignore is read
// once: loadIgnorer takes the files above the start directory, and the
// walk adds the start directory's own, so its rules are not matched twice.
func TestLoadIgnorerLeavesStartToWalk(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".gitignore": "*.log\n", "sub/.gitignore": "*.tmp\n", "sub/deep/.gitignore": "*.bak\n",
		"sub/deep/a.log": "", "sub/deep/a.tmp": "", "sub/deep/a.bak": "", "sub/deep/a.go": "",
	})
	if ig := loadIgnorer(ws.root, "."); ig != nil {
		t.Fatalf("the start directory's rules were loaded: %d patterns", len(ig.patterns))
	}
	ig := loadIgnorer(ws.root, "sub/deep")
	if ig == nil || len(ig.patterns) != 2 {
		t.Fatalf("ignorer for sub/deep = %+v; want the 2 patterns of . and sub", ig)
	}
	var mu sync.Mutex
	var got []string
	err := walk(t.Context(), ws.root, walkOpts{start: "sub/deep", ignore: ig}, func(_ int, e entry) bool {
		mu.Lock()
		got = append(got, e.rel())
		mu.Unlock()
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"sub/deep/.gitignore", "sub/deep/a.go"}; !slices.Equal(got, want) {
		t.Fatalf("walk of sub/deep visited %q, want %q", got, want)
	}
}
