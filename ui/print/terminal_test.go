package print

import (
	"strings"
	"testing"
)

// TestTerminalWriter: what a subcommand writes to a terminal loses its
// escape sequences and control characters, as the answer of -p does, a
// sequence cut between two writes included; the writer reports every
// byte it was given as written.
func TestTerminalWriter(t *testing.T) {
	var out strings.Builder
	w := TerminalWriter(&out)
	for _, s := range []string{"[zebrafish] \x1b]52;c;cHduZWQ=\a\x1b[2J start\r\n", "cut \x1b]0;TI", "TLE\a here\ttab\u2028\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("wrote %d of %d bytes: %v", n, len(s), err)
		}
	}
	if got, want := out.String(), "[zebrafish]  start\ncut TLE here\ttab\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
