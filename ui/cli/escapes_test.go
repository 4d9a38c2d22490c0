package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// Escape sequences a model's text or a repository's file names may hold:
// OSC 52 sets the clipboard, ESC[2J clears the screen, OSC 0 retitles the
// window.
const (
	osc52   = "\x1b]52;c;cHduZWQ=\a"
	clearSc = "\x1b[2J"
	retitle = "\x1b]0;TITLE\a"
)

// onTerminal runs lathe with args, its stdout a pseudo-terminal, and
// returns what the terminal received and the exit code.
func onTerminal(t *testing.T, r *tuiRun, args ...string) (string, int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var got bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&got, ptmx) // until the terminal's other end is closed
		close(copied)
	}()
	var stderr strings.Builder
	code := Run(t.Context(), append([]string{"-C", r.dir}, args...), strings.NewReader(""), tty, &stderr, r.environ())
	tty.Close()
	<-copied
	return got.String() + stderr.String(), code
}

// TestSubcommandsCleanEscapes: what a model or a repository wrote (a
// session's title, a prompt, an answer, a file's name and content)
// reaches a terminal from lathe's subcommands as text, as the answer of
// lathe -p does: not one escape sequence of it is written. stderr shows
// a file's name escaped. Written to a file, the output is as it was.
func TestSubcommandsCleanEscapes(t *testing.T) {
	r := newTUIRun(t)
	r.srv.Respond(func(api.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "zebrafish " + retitle + " title"}
	})
	r.srv.Script(
		ollamatest.Reply{Content: "Writing " + osc52, ToolCalls: []ollamatest.ToolCall{{Name: "write_file",
			Arguments: []byte(`{"path":"w\u001b]52;c;cHduZWQ=\u0007\u001b[2J.txt","content":"x\u001b[2J\n"}`)}}},
		ollamatest.Reply{Content: "final zebrafish " + osc52 + " answer"})
	var out strings.Builder
	if code := Run(t.Context(), []string{"-C", r.dir, "-p", "zebrafish " + osc52 + clearSc + " start", "--yes"},
		strings.NewReader(""), &out, &out, r.environ()); code != 0 {
		t.Fatalf("the run: exit %d\n%s", code, out.String())
	}

	var piped bytes.Buffer
	if code := Run(t.Context(), []string{"-C", r.dir, "sessions", "search", "zebrafish"}, strings.NewReader(""), &piped, io.Discard, r.environ()); code != 0 ||
		!strings.Contains(piped.String(), osc52) {
		t.Errorf("sessions search to a file: exit %d, the text changed:\n%q", code, piped.String())
	}
	for _, c := range []struct {
		args []string
		want []string // cleaned
	}{
		{[]string{"sessions"}, []string{"zebrafish"}},
		{[]string{"sessions", "search", "zebrafish"}, []string{"final [zebrafish]  answer"}},
		{[]string{"undo", "--list"}, []string{"1 file", "zebrafish"}},
		{[]string{"undo", "--yes"}, []string{`remove w\x1b]52;c;cHduZWQ=\x07\x1b[2J.txt`, `removed w\x1b]52`}},
		{[]string{"undo", "--yes"}, []string{`nothing to undo in session`}},
	} {
		got, code := onTerminal(t, r, c.args...)
		if strings.ContainsAny(got, "\x1b\a") {
			t.Errorf("lathe %s wrote escape sequences to the terminal:\n%q", strings.Join(c.args, " "), got)
		}
		t.Logf("%s: %q", c.args, got)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("lathe %s (exit %d) does not show %q:\n%q", strings.Join(c.args, " "), code, w, got)
			}
		}
	}
}
