package tools

import (
	"fmt"
	"lathe/prompts/human"
	"strings"
	"testing"
	"unicode/utf8"
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %04d\n", i) // 10 bytes each
	}
	return b.String()
}

func TestCapShort(t *testing.T) {
	for _, s := range []string{"", "one line", numberedLines(25)} {
		if got := Cap(s, 256); got != s {
			t.Errorf("Cap changed a text that fits: %q", got)
		}
	}
}

func TestCapLines(t *testing.T) {
	in := numberedLines(1000) // 10,000 bytes
	got := Cap(in, 512)
	if len(got) > 512 {
		t.Fatalf("capped text is %d bytes, over 512", len(got))
	}
	// Head: 256 bytes hold 25 whole lines and a piece of the 26th, which is cut.
	// Tail: 512-250-64 = 198 bytes; the first whole line in them starts 19 lines
	// from the end.
	want := numberedLines(25) + "[... 956 lines (9560 bytes) cut ...]\n" + strings.Join(strings.SplitAfter(in, "\n")[981:], "")
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCapLongLine(t *testing.T) {
	// One line of 3-byte runes: cuts must fall between runes.
	in := strings.Repeat("€", 2000) + "\n"
	got := Cap(in, 300)
	if !utf8.ValidString(got) {
		t.Fatalf("cut inside a UTF-8 sequence: %q", got)
	}
	if len(got) > 300 {
		t.Fatalf("capped text is %d bytes", len(got))
	}
	if !strings.Contains(got, "\n[... 1 line (") || !strings.HasPrefix(got, "€€€") || !strings.HasSuffix(got, "€€\n") {
		t.Fatalf("unexpected shape: %q", got)
	}
	head, _, _ := strings.Cut(got, "\n")
	_, tail, _ := strings.Cut(got, " cut ...]\n")
	var cut int
	fmt.Sscanf(got[strings.Index(got, "("):], "(%d bytes)", &cut)
	if len(head)+len(tail)+cut != len(in) {
		t.Fatalf("head %d + tail %d + cut %d != %d", len(head), len(tail), cut, len(in))
	}
}

// TestCapWriterStreams checks that writing in small pieces gives the same
// text as capping the whole, in bounded memory.
func TestCapWriterStreams(t *testing.T) {
	in := numberedLines(5000)
	w := newCapWriter(1024)
	for chunk := range strings.SplitSeq(in, "7") {
		w.Write([]byte(chunk + "7"))
	}
	in += "7" // every chunk got its separator back, the last one an extra
	if got, want := w.String(), Cap(in, 1024); got != want {
		t.Fatalf("streamed:\n%s\nwhole:\n%s", got, want)
	}
	if cap(w.tail) > 4*1024 || w.Len() != len(in) {
		t.Fatalf("tail buffer %d bytes, length %d", cap(w.tail), w.Len())
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 entries", 1: "1 entry", 2: "2 entries"} {
		if got := human.Plural(n, "entry"); got != want {
			t.Errorf("human.Plural(%d) = %q", n, got)
		}
	}
	if got := human.Plural(3, "match"); got != "3 matches" {
		t.Errorf("got %q", got)
	}
}

// TestEveryResultCapped checks that no tool sends back more than the cap,
// whatever it produces, errors from Prepare included.
func TestEveryResultCapped(t *testing.T) {
	files := map[string]string{"big.txt": numberedLines(5000), "wide.txt": strings.Repeat("x", 100_000)}
	for i := range 300 {
		files[fmt.Sprintf("d/file-with-a-long-name-%04d.txt", i)] = "match\n"
	}
	ws := newWorkspace(t, files)
	long := strings.Repeat("y", 50_000)
	const limit = 512
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path":"big.txt"}`},
		{"read_file", `{"path":"wide.txt"}`},
		{"list_dir", `{"path":"d"}`},
		{"glob", `{"pattern":"**"}`},
		{"grep", `{"pattern":"match"}`},
		{"grep", `{"pattern":"x"}`},
		{"shell", `{"command":"seq 1 100000; seq 1 100000 >&2"}`},
		{"read_file", `{"path":"../` + long + `"}`},
		{"grep", `{"pattern":"(` + long + `"}`},
		{"write_file", `{"path":"` + long + `/../../x","content":""}`},
		{"read_file", `{"path":"big.txt","` + long + `":1}`},
	} {
		res := run(t, ws, Options{MaxOutputBytes: limit}, c.tool, c.args)
		// An ignored-argument note, itself short, is added after the cap.
		if len(res.Content) > limit+100 {
			t.Errorf("%s %.60s: %d bytes", c.tool, c.args, len(res.Content))
		}
	}
}
