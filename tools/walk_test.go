package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// bigTree has many directories, some with more files than a batch, and
// one whose entries take more than one read of the directory.
func bigTree() map[string]string {
	files := map[string]string{".gitignore": "skip*/\n", ".git/x": ""}
	for f := range 1500 {
		files[fmt.Sprintf("d99/wide/%s%04d", strings.Repeat("x", 60), f)] = ""
	}
	for d := range 40 {
		n := 3
		if d%10 == 0 {
			n = 3*fileBatch + 5
		}
		for f := range n {
			files[fmt.Sprintf("d%02d/e%d/f%03d", d, d%3, f)] = ""
		}
		files[fmt.Sprintf("skip%02d/f", d)] = ""
	}
	return files
}

func TestWalkVisitsEverything(t *testing.T) {
	files := bigTree()
	ws := newWorkspace(t, files)
	var mu sync.Mutex
	var got []string
	err := walk(t.Context(), ws.root, walkOpts{start: ".", ignore: loadIgnorer(ws.root, "."), workers: 4}, func(_ int, e entry) bool {
		if !e.typ.IsDir() {
			mu.Lock()
			got = append(got, e.rel())
			mu.Unlock()
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for name := range files {
		if name[0] == 'd' || name == ".gitignore" {
			want = append(want, name)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("visited %d files, want %d", len(got), len(want))
	}
}

// TestWalkCancel checks that a cancelled walk stops, says so, and closes
// every directory it opened.
func TestWalkCancel(t *testing.T) {
	ws := newWorkspace(t, bigTree())
	before := openFDs(t)
	ctx, cancel := context.WithCancel(t.Context())
	var seen atomic.Int32
	err := walk(ctx, ws.root, walkOpts{start: ".", workers: 4}, func(_ int, e entry) bool {
		if seen.Add(1) == 50 {
			cancel()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if n := seen.Load(); n > 400 {
		t.Fatalf("walk went on after cancel: %d entries", n)
	}
	if after := openFDs(t); after != before {
		t.Fatalf("%d file descriptors open before the walk, %d after", before, after)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}
