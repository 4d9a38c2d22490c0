package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrepBlocks checks matches and line numbers in files that span
// several blocks: lines that straddle a block's end, a line longer than a
// block, \r\n endings cut between blocks, no final newline.
func TestGrepBlocks(t *testing.T) {
	line := func(n int) string { return fmt.Sprintf("line %06d %s\n", n, strings.Repeat("x", 40)) } // 53 bytes
	var plain, crlf strings.Builder
	for n := 1; plain.Len() < 3*grepBlock; n++ {
		plain.WriteString(line(n))
		crlf.WriteString(strings.TrimSuffix(line(n), "\n") + "\r\n")
	}
	long := "short 1\n" + strings.Repeat("y", 3*grepBlock) + " needle 2\nshort 3\nneedle 4"
	ws := newWorkspace(t, map[string]string{"plain.txt": plain.String(), "crlf.txt": crlf.String(), "long.txt": long})
	tests := []struct{ name, args, want string }{
		// Line 2474 is the first to cross 128 KiB (2474*53 > 131072).
		{name: "across a block end", args: `{"pattern":"line 00247[45] ","path":"plain.txt"}`,
			want: "plain.txt:2474: " + strings.TrimSuffix(line(2474), "\n") + "\nplain.txt:2475: " + strings.TrimSuffix(line(2475), "\n") + "\n"},
		{name: "last line", args: `{"pattern":"line 007419 ","path":"plain.txt"}`, want: "plain.txt:7419: " + strings.TrimSuffix(line(7419), "\n") + "\n"},
		{name: "crlf anchored", args: `{"pattern":"x$","path":"crlf.txt"}`, want: "crlf.txt:1: line 000001"},
		{name: "crlf count", args: `{"pattern":"^line 00[0-9]{4} x+$","path":"crlf.txt"}`, want: "(showing 200 of 7420 matches in 1 file"},
		{name: "longer than a block", args: `{"pattern":"needle|short","path":"long.txt"}`,
			want: "long.txt:1: short 1\nlong.txt:2: …" + strings.Repeat("y", 240-len(" needle 2")) + " needle 2\nlong.txt:3: short 3\nlong.txt:4: needle 4\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, ws, Options{MaxOutputBytes: 1 << 20}, "grep", tt.args)
			if !strings.HasPrefix(res.Content, tt.want) && !strings.Contains(res.Content, tt.want) {
				t.Fatalf("got %.600q\nwant %.600q", res.Content, tt.want)
			}
		})
	}
}

// TestGrepReadsLittle checks that grep reads no more of a binary file than
// its first block, and that a long line's buffer does not outlive its file.
func TestGrepReadsLittle(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"bin":   "\x00" + strings.Repeat("needle\n", grepBlock), // 7 blocks
		"long":  strings.Repeat("z", 5*grepBlock) + "needle\n",
		"short": "needle\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := openWorkspace(t, dir)
	m, err := newGrepMatcher("needle")
	if err != nil {
		t.Fatal(err)
	}
	w := newGrepWorker()
	open := func(name string) entry { return entry{dir: ws.root, dirFD: -1, name: name} }
	named := func(name string) func() string { return func() string { return name } }
	if w.searchFile(m, open("bin"), named("bin")) {
		t.Fatal("binary file searched")
	}
	if read := int64(len(files["bin"])) - w.rd.left; read != grepBlock {
		t.Fatalf("read %d bytes of a binary file, want one block (%d)", read, grepBlock)
	}
	if !w.searchFile(m, open("long"), named("long")) || cap(w.rd.buf) <= grepBlock {
		t.Fatalf("long line not searched whole: buffer %d bytes", cap(w.rd.buf))
	}
	if !w.searchFile(m, open("short"), named("short")) || cap(w.rd.buf) != grepBlock {
		t.Fatalf("buffer after a short file: %d bytes, want %d", cap(w.rd.buf), grepBlock)
	}
	if w.matches != 2 {
		t.Fatalf("%d matches, want 2", w.matches)
	}
}
